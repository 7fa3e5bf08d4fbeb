// The Timing tab's folded transforms stay as the person left them. A new run's chart arrives as
// new HTML, whose <details> are closed: the ports opened here are kept in the page and opened
// again as the new chart is put in, before the page draws it (a mutation observer's callback
// runs ahead of the next frame), so an edit never closes a row someone was reading.
const VIEW = ".ax-timing";
const FOLD = "details.ax-bar-fold[data-port]";

export default {
  render({ el }) {
    const opened = new Set();
    let view = null;
    let observer = null;
    const onToggle = (e) => {
      const fold = e.target;
      if (!(fold instanceof HTMLDetailsElement) || !fold.matches(FOLD)) return;
      if (fold.open) opened.add(fold.dataset.port);
      else if (fold.isConnected) opened.delete(fold.dataset.port);
    };
    const reopen = () => {
      for (const fold of view.querySelectorAll(FOLD)) {
        if (!fold.open && opened.has(fold.dataset.port)) fold.open = true;
      }
    };
    // the view is this widget's ancestor once the notebook has put the panel on the page
    const attach = () => {
      view = el.closest(VIEW);
      if (!view) return false;
      view.addEventListener("toggle", onToggle, true); // toggle does not bubble
      observer = new MutationObserver(() => { if (opened.size) reopen(); });
      observer.observe(view, { childList: true, subtree: true });
      return true;
    };
    let tries = 0;
    const wait = () => { if (!attach() && tries++ < 50) setTimeout(wait, 100); };
    wait();
    return () => {
      if (view) view.removeEventListener("toggle", onToggle, true);
      if (observer) observer.disconnect();
    };
  },
};

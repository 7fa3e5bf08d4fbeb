// Ctrl+Z / Ctrl+Shift+Z (Cmd on a Mac; Ctrl+Y too) anywhere in the panel undo and redo the
// graph's last edit, as the toolbar's buttons do. Keys typed in a text box are the box's own
// (its text's undo), and the notebook does not take these keys from the panel.
const PANEL = ".ax-explorer";

function inTextBox(target) {
  const tag = (target?.tagName || "").toLowerCase();
  return tag === "textarea" || (tag === "input" && !["checkbox", "radio", "range", "button"]
    .includes((target.type || "").toLowerCase())) || Boolean(target?.isContentEditable);
}

export default {
  render({ model, el }) {
    el.classList.add("ax-panel-keys");
    let panel = null;
    const onKey = (e) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || inTextBox(e.target)) return;
      const key = e.key.toLowerCase();
      const redo = (key === "z" && e.shiftKey) || (key === "y" && !e.shiftKey);
      const undo = key === "z" && !e.shiftKey;
      if (!undo && !redo) return;
      e.preventDefault();
      e.stopPropagation();
      model.send({ event: redo ? "redo" : "undo" });
    };
    // the panel is this widget's ancestor once the notebook has put it on the page
    const attach = () => {
      panel = el.closest(PANEL);
      if (!panel) return false;
      panel.addEventListener("keydown", onKey);
      return true;
    };
    let tries = 0;
    const wait = () => { if (!attach() && tries++ < 50) setTimeout(wait, 100); };
    wait();
    return () => { if (panel) panel.removeEventListener("keydown", onKey); };
  },
};

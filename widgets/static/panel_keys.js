// Ctrl+Z / Ctrl+Shift+Z (Cmd on a Mac; Ctrl+Y too) anywhere in the panel undo and redo the
// graph's last edit, as the toolbar's buttons do. Keys typed in a text box are the box's own
// (its text's undo), and the notebook does not take these keys from the panel.
// Up and Down in a number box step its number, as the arrows step a slider (see stepped).
const PANEL = ".ax-explorer";
const STEP_CLASS = "ax-step-"; // arg_controls.arrow_step: "ax-step-0.01"
const SEND_AFTER_MS = 250; // an arrow-stepped number goes to the kernel once the keys rest
const pending = new Map(); // input -> its timer
const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)$/;

function decimals(text) {
  const point = text.indexOf(".");
  return point < 0 ? 0 : text.length - point - 1;
}

// The text a number box holds after an arrow key: one step up or down (ten with Shift), by
// the step its class names (its slider's), else by one unit of its last digit typed (0.25 by
// 0.01, 12 by 1); null where the text is no plain number (the key then moves the caret).
function stepped(box, text, up, tenfold) {
  const typed = text.trim();
  if (!PLAIN_NUMBER.test(typed)) return null;
  const named = [...box.classList].find((c) => c.startsWith(STEP_CLASS));
  const stepText = named ? named.slice(STEP_CLASS.length) : `${10 ** -decimals(typed)}`;
  const step = Number(stepText);
  if (!(step > 0)) return null;
  const next = Number(typed) + (up ? 1 : -1) * step * (tenfold ? 10 : 1);
  // as many decimals as the step or the text has: 0.1 + 0.2 reads 0.3
  const places = Math.min(12, Math.max(decimals(typed), decimals(String(step))));
  return String(Number(next.toFixed(places)));
}

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
    // Caught on the way down: a text box's own handler keeps its keys from going further up.
    const onArrow = (e) => {
      if (!["ArrowUp", "ArrowDown"].includes(e.key) || e.ctrlKey || e.metaKey || e.altKey) return;
      const input = e.target;
      const box = input?.closest?.(".ax-number-text");
      if (!box || input.tagName !== "INPUT" || input.disabled || input.readOnly) return;
      const text = stepped(box, input.value, e.key === "ArrowUp", e.shiftKey);
      if (text === null) return;
      e.preventDefault();
      e.stopPropagation();
      input.value = text;
      // Sent as Enter sends typed text (the kernel reads it, and refuses it alike), once the
      // keys rest: a held key's steps sent one by one crossed the slider's answers to them,
      // which put back a step already passed.
      clearTimeout(pending.get(input));
      pending.set(input, setTimeout(() => {
        pending.delete(input);
        input.dispatchEvent(new Event("change", { bubbles: true }));
      }, SEND_AFTER_MS));
    };
    // the panel is this widget's ancestor once the notebook has put it on the page
    const attach = () => {
      panel = el.closest(PANEL);
      if (!panel) return false;
      panel.addEventListener("keydown", onKey);
      panel.addEventListener("keydown", onArrow, true);
      return true;
    };
    let tries = 0;
    const wait = () => { if (!attach() && tries++ < 50) setTimeout(wait, 100); };
    wait();
    return () => {
      if (!panel) return;
      panel.removeEventListener("keydown", onKey);
      panel.removeEventListener("keydown", onArrow, true);
    };
  },
};

// The graph as SVG: one box per node, top to bottom in the user's order, with edges for
// inputs (solid) and argument inputs (dashed). Clicking a node sets the `selected` trait.
const SVG = "http://www.w3.org/2000/svg";
const LINE_H = 14;
const GAP = 18;
const LEFT = 34; // room for argument edges bending out on the left
const RIGHT = 34; // and for skips bending out on the right
const MIN_BOX = 150;
const MAX_BOX = 300;
let BOX_W = 232; // set from the column's width on every draw
// characters of text a box holds at its width (about 6.6 px a character at 11-12.5 px)
const chars = (px) => Math.max(8, Math.floor(px / 6.8));

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  if (parent) parent.appendChild(el);
  return el;
}

function text(parent, x, y, content, cls) {
  const t = svg("text", { x, y, class: cls }, parent);
  t.textContent = content;
  return t;
}

function nodeLines(node) {
  const lines = [];
  for (const r of node.randoms || []) lines.push({ text: r, cls: "ax-g-random" });
  for (const [arg, ref] of node.arg_refs || []) lines.push({ text: `${arg} ← ${ref}`, cls: "ax-g-argref" });
  if (node.probability !== null && node.probability !== undefined)
    lines.push({ text: `applied with p = ${node.probability}`, cls: "ax-g-random" });
  if (node.condition) lines.push({ text: `runs ${node.condition}`, cls: "ax-g-random" });
  if (node.error) lines.push({ text: node.error, cls: "ax-g-error-text" });
  return lines;
}

function clip(s, n) {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

function draw(model, el) {
  const nodes = model.get("nodes") || [];
  const selected = model.get("selected");
  // Fit the column: the boxes take the width there is, between the edges' margins.
  const avail = el.clientWidth || 272;
  BOX_W = Math.max(MIN_BOX, Math.min(MAX_BOX, avail - LEFT - RIGHT - 2));
  el.replaceChildren();
  const heights = nodes.map((n) => 38 + LINE_H * nodeLines(n).length);
  const tops = [];
  let y = 6;
  for (const h of heights) {
    tops.push(y);
    y += h + GAP;
  }
  const width = LEFT + BOX_W + RIGHT;
  const root = svg("svg", { width, height: Math.max(y, 40), class: "ax-graph-svg" }, el);
  const defs = svg("defs", {}, root);
  const marker = svg("marker", { id: "ax-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "ax-g-arrowhead" }, marker);
  const index = new Map(nodes.map((n, i) => [n.id, i]));
  const edges = svg("g", {}, root);
  nodes.forEach((node, b) => {
    const targetTop = tops[b];
    const refs = (node.inputs || []).map((r) => [r, false]).concat(
      (node.arg_refs || []).map(([, r]) => [r, true]));
    refs.forEach(([ref, isArg], k) => {
      const a = index.get(ref.split(":")[0]);
      if (a === undefined) return;
      const y1 = tops[a] + heights[a];
      const y2 = targetTop;
      const span = Math.abs(b - a);
      let d;
      if (b === a + 1 && !isArg) {
        const x = LEFT + BOX_W / 2;
        d = `M ${x} ${y1} L ${x} ${y2}`;
      } else {
        // Skips and argument inputs bend out to the side so they never cross a box.
        const right = !isArg;
        const xs = right ? LEFT + BOX_W : LEFT;
        const bend = (right ? 1 : -1) * (14 + 6 * Math.min(span, 4) + 3 * k);
        const ya = tops[a] + heights[a] / 2;
        const yb = targetTop + heights[b] / 2;
        d = `M ${xs} ${ya} C ${xs + bend} ${ya}, ${xs + bend} ${yb}, ${xs} ${yb}`;
      }
      svg("path", { d, class: isArg ? "ax-g-edge ax-g-edge-arg" : "ax-g-edge",
        "marker-end": "url(#ax-arrow)" }, edges);
    });
  });
  nodes.forEach((node, i) => {
    const classes = ["ax-g-node", `ax-g-${node.kind}`];
    if (node.id === selected) classes.push("ax-g-selected");
    if (node.error) classes.push("ax-g-error");
    if (node.output) classes.push("ax-g-output");
    const g = svg("g", { class: classes.join(" "), "data-node": node.id,
      transform: `translate(${LEFT}, ${tops[i]})` }, root);
    const title = svg("title", {}, g);
    // the whole text of every line, which the box may have to cut short
    title.textContent = [`${node.id} (${node.op})`, ...nodeLines(node).map((l) => l.text)].join("\n");
    svg("rect", { width: BOX_W, height: heights[i], rx: 7, ry: 7, class: "ax-g-box" }, g);
    const timeRoom = 60;
    text(g, 10, 17, clip(node.id, chars(BOX_W - timeRoom - 10)), "ax-g-id");
    text(g, BOX_W - 8, 17, node.time_ms === null ? "" : `${node.time_ms.toFixed(1)} ms`,
      node.ran ? "ax-g-time ax-g-ran" : "ax-g-time");
    text(g, 10, 32, clip(node.op, chars(BOX_W - 50)), "ax-g-op");
    text(g, BOX_W - 8, 32, node.device || "", "ax-g-device");
    nodeLines(node).forEach((line, k) =>
      text(g, 10, 47 + k * LINE_H, clip(line.text, chars(BOX_W - 16)), line.cls));
    g.addEventListener("click", () => {
      model.set("selected", node.id === model.get("selected") ? "" : node.id);
      model.save_changes();
    });
  });
}

// Notebook 7 binds the arrow keys to heading navigation for anything focused in a notebook in
// command mode, so a focused slider handle or dropdown in the panel would never see them.
// Lumino skips its shortcuts for an element marked with this attribute.
const KEEP_KEYS = "data-lm-suppress-shortcuts";

function keepKeys(el, tries = 40) {
  const root = el.closest(".ax-explorer");
  if (!root) {
    if (tries > 0) requestAnimationFrame(() => keepKeys(el, tries - 1));
    return;
  }
  if (root.dataset.axKeys) return;
  root.dataset.axKeys = "1";
  const mark = () =>
    root.querySelectorAll(`.noUi-handle:not([${KEEP_KEYS}]), select:not([${KEEP_KEYS}])`)
      .forEach((n) => n.setAttribute(KEEP_KEYS, "true"));
  mark();
  new MutationObserver(mark).observe(root, { childList: true, subtree: true });
  // Shift+arrow on a slider moves ten steps (the slider itself moves one per key press).
  root.addEventListener("keydown", (event) => {
    if (!event.shiftKey || !event.isTrusted || !ARROWS.has(event.key)) return;
    const handle = event.target.closest && event.target.closest(".noUi-handle");
    if (!handle) return;
    for (let i = 0; i < 9; i++)
      handle.dispatchEvent(new KeyboardEvent("keydown", { key: event.key, bubbles: true, cancelable: true }));
  }, true);
}
const ARROWS = new Set(["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]);

export default {
  render({ model, el }) {
    el.classList.add("ax-graph-root");
    keepKeys(el);
    const redraw = () => draw(model, el);
    model.on("change:nodes", redraw);
    model.on("change:selected", redraw);
    redraw();
    // the column's width is known only once the panel is laid out, and changes with the page
    let lastWidth = el.clientWidth;
    const resized = new ResizeObserver(() => {
      if (el.clientWidth !== lastWidth) {
        lastWidth = el.clientWidth;
        redraw();
      }
    });
    resized.observe(el);
    return () => {
      resized.disconnect();
      model.off("change:nodes", redraw);
      model.off("change:selected", redraw);
    };
  },
};

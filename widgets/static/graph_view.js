// The graph as SVG: one box per node, top to bottom in the user's order (nodes under a
// condition inside their block), with edges for inputs (solid) and argument inputs (dashed).
// Clicking a node sets the `selected` trait.
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

function nodeLines(node, inBlock) {
  const lines = [];
  for (const r of node.randoms || []) lines.push({ text: r, cls: "ax-g-random" });
  for (const [arg, ref] of node.arg_refs || []) lines.push({ text: `${arg} ← ${ref}`, cls: "ax-g-argref" });
  if (node.probability !== null && node.probability !== undefined)
    lines.push({ text: `applied with p = ${node.probability}`, cls: "ax-g-random" });
  // inside a block, the block's header and column say it
  if (node.condition && !inBlock) lines.push({ text: `runs ${node.condition}`, cls: "ax-g-random" });
  if (node.error) lines.push({ text: node.error, cls: "ax-g-error-text" });
  // a ported node: its measured grade and the library it came from
  if (node.origin) lines.push({ text: node.origin, cls: "ax-g-argref" });
  return lines;
}

function clip(s, n) {
  return s.length > n ? s.slice(0, n - 1) + "…" : s;
}

// Conditional blocks (the `arrangement` trait, from graph_layout.py): a frame with an
// "if <predicate>" header, one column per branch, side by side where each column keeps
// MIN_COL pixels, else one under the other; the node after the merge goes below the frame.
const PAD = 5;
const HEAD = 20;
const LABEL = 16;
const COL_GAP = 4;
const GAP_IN = 12;
const MIN_COL = 76; // a box this narrow still shows its name, operator, device and time
const NARROW = 190; // below this a box puts its time and device on a line of their own

function boxHeight(node, w, inBlock) {
  return (w < NARROW ? 52 : 38) + LINE_H * nodeLines(node, inBlock).length;
}

// A ported transform's nodes (graph_layout.py's "port" items): a frame headed by the call the
// user wrote, folded to the node the graph reads on, with a toggle that unfolds the rest.
const PORT_HEAD = 36;

// Every node id an item holds, at any depth.
function memberIds(item, ids = []) {
  if (item.kind === "node") ids.push(item.id);
  else for (const inner of item.kind === "port" ? item.items || [] : (item.branches || []).flatMap((b) => b.items || []))
    memberIds(inner, ids);
  return ids;
}

// Whether a ported transform is shown unfolded: asked for, or holding the selected node or a
// failing one that folding would hide. It then stays unfolded, as if asked for (a click on
// another of its nodes must not fold the boxes away under the pointer), and a fold asked for
// while that node is still selected holds: only another reason unfolds it again.
function portOpen(item, out) {
  const hidden = memberIds(item).filter((id) => id !== item.main);
  const reason = [
    ...hidden.filter((id) => id === out.selected).map((id) => `selected ${id}`),
    ...hidden.filter((id) => (out.byId.get(id) || {}).error).map((id) => `failed ${id}`),
  ].join(", ");
  if (reason && out.reasons.get(item.id) !== reason) {
    out.reasons.set(item.id, reason);
    out.open.add(item.id);
  }
  return out.open.has(item.id);
}

function placePort(item, x, y, w, seq, index, depth, byId, out) {
  const open = portOpen(item, out);
  const port = { kind: "port", item, x, y, w, h: 0, seq, index, depth, open };
  out.items.push(port);
  const inner = { parent: port, id: out.seqs++ };
  const shown = open ? item.items || [] : [{ kind: "node", id: item.main }];
  const end = place(shown, x + PAD, y + PORT_HEAD, w - 2 * PAD, inner, depth + 1, byId, out);
  // a folded node's edges end at the frame, as a block's nodes' edges end at its frame
  if (!open) for (const id of memberIds(item)) if (id !== item.main) out.nodeAt.set(id, port);
  port.h = end + PAD - y;
  return port;
}

// Places `items` top to bottom from (x, y) at width w; returns the bottom of the last one.
// Every placed item records its sequence (`seq`) and position there, for the edges.
function place(items, x, y, w, seq, depth, byId, out) {
  let bottom = y;
  items.forEach((item, index) => {
    const gap = depth === 0 ? GAP : GAP_IN;
    if (index > 0) y = bottom + gap;
    if (item.kind === "port") {
      const port = placePort(item, x, y, w, seq, index, depth, byId, out);
      bottom = y + port.h;
      return;
    }
    if (item.kind === "node") {
      const node = byId.get(item.id);
      if (!node) return;
      const h = boxHeight(node, w, depth > 0);
      const placed = { kind: "node", node, x, y, w, h, seq, index, depth };
      out.items.push(placed);
      out.nodeAt.set(node.id, placed);
      bottom = y + h;
      return;
    }
    const block = { kind: "block", item, x, y, w, h: 0, seq, index, depth, columns: [] };
    out.items.push(block);
    const branches = item.branches || [];
    const n = branches.length;
    const sideWidth = (w - 2 * PAD - (n - 1) * COL_GAP) / n;
    const side = n > 1 && sideWidth >= MIN_COL;
    const labelled = n > 1;
    let end = y + HEAD;
    let cy = y + HEAD;
    branches.forEach((branch, k) => {
      const cx = side ? x + PAD + k * (sideWidth + COL_GAP) : x + PAD;
      const cw = side ? sideWidth : w - 2 * PAD;
      const top = side ? y + HEAD : cy;
      const inner = { parent: block, id: out.seqs++ };
      const itemsTop = top + (labelled ? LABEL : 2);
      const colEnd = place(branch.items || [], cx, itemsTop, cw, inner, depth + 1, byId, out);
      block.columns.push({ x: cx, y: top, w: cw, label: labelled ? branch.label : "" });
      end = Math.max(end, colEnd);
      cy = colEnd + 6;
    });
    block.side = side;
    block.h = end + PAD - y;
    bottom = y + block.h;
  });
  return bottom;
}

// The item and its enclosing blocks, innermost first.
function ancestors(placed) {
  const chain = [placed];
  let seq = placed.seq;
  while (seq.parent) {
    chain.push(seq.parent);
    seq = seq.parent.seq;
  }
  return chain;
}

// The two items, one holding each end, that sit in one sequence (null when one block holds both).
function siblings(a, b) {
  const chainB = ancestors(b);
  for (const x of ancestors(a)) {
    const y = chainB.find((c) => c.seq === x.seq);
    if (y) return x === y ? null : [x, y];
  }
  return null;
}

function drawBlock(root, block) {
  const g = svg("g", { class: "ax-g-block", "data-predicate": block.item.predicate,
    transform: `translate(${block.x}, ${block.y})` }, root);
  svg("title", {}, g).textContent = block.item.header;
  svg("rect", { width: block.w, height: block.h, rx: 9, ry: 9, class: "ax-g-block-frame" }, g);
  text(g, 8, 14, clip(block.item.header, chars(block.w - 12)), "ax-g-block-head");
  block.columns.forEach((col, k) => {
    if (!col.label) return;
    const c = svg("g", { class: "ax-g-branch", "data-branch": k,
      transform: `translate(${col.x - block.x}, ${col.y - block.y})` }, g);
    svg("title", {}, c).textContent = col.label;
    svg("rect", { width: col.w, height: LABEL - 2, rx: 4, ry: 4, class: "ax-g-branch-head" }, c);
    text(c, 5, 10.5, clip(col.label, chars(col.w - 8)), "ax-g-branch-label");
  });
}

function drawPort(root, port, byId, redraw, open) {
  const { item } = port;
  const g = svg("g", { class: "ax-g-port", "data-port": item.id,
    transform: `translate(${port.x}, ${port.y})` }, root);
  svg("title", {}, g).textContent =
    `${item.header}${item.line ? ` · line ${item.line}` : ""}: ${item.count} nodes of DALI`;
  svg("rect", { width: port.w, height: port.h, rx: 9, ry: 9, class: "ax-g-port-frame" }, g);
  text(g, 8, 14, clip(item.header, chars(port.w - 12)), "ax-g-port-head");
  const toggle = svg("g", { class: "ax-g-port-toggle", tabindex: 0, role: "button",
    "aria-expanded": String(port.open), transform: "translate(6, 19)" }, g);
  // what the transform costs as a whole (its nodes' last times summed), where a box has its time
  const times = memberIds(item).map((id) => (byId.get(id) || {}).time_ms).filter((t) => typeof t === "number");
  const cost = times.length ? `${times.reduce((a, b) => a + b, 0).toFixed(1)} ms` : "";
  const where = item.line ? ` · line ${item.line}` : "";
  const label = port.open
    ? `▾ fold to ${item.main}${where}`
    : `▸ show ${item.count - 1} more node${item.count === 2 ? "" : "s"}${where}`;
  svg("rect", { width: port.w - 12, height: 13, rx: 3, ry: 3, class: "ax-g-port-toggle-bg" }, toggle);
  text(toggle, 3, 10, clip(label, chars(port.w - 24 - 6.8 * cost.length)), "ax-g-port-toggle-label");
  text(toggle, port.w - 15, 10, cost, "ax-g-port-time");
  const flip = () => {
    if (port.open) open.delete(item.id);
    else open.add(item.id);
    redraw();
  };
  toggle.addEventListener("click", flip);
  toggle.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    flip();
  });
}

function drawNode(root, model, placed, selected) {
  const { node, w, h } = placed;
  const inBlock = placed.depth > 0;
  const classes = ["ax-g-node", `ax-g-${node.kind}`];
  if (node.id === selected) classes.push("ax-g-selected");
  if (node.error) classes.push("ax-g-error");
  if (node.output) classes.push("ax-g-output");
  const g = svg("g", { class: classes.join(" "), "data-node": node.id,
    transform: `translate(${placed.x}, ${placed.y})` }, root);
  const title = svg("title", {}, g);
  // the whole text of every line, which the box may have to cut short
  const click = node.id === selected ? "click to unselect" : "click to select: its output and its arguments";
  title.textContent = [`${node.id} (${node.op})`, ...nodeLines(node, false).map((l) => l.text), click].join("\n");
  svg("rect", { width: w, height: h, rx: 7, ry: 7, class: "ax-g-box" }, g);
  const time = node.time_ms === null || node.time_ms === undefined ? "" : `${node.time_ms.toFixed(1)} ms`;
  const timeCls = node.ran ? "ax-g-time ax-g-ran" : "ax-g-time";
  let y = 47;
  if (w < NARROW) {
    text(g, 8, 17, clip(node.id, chars(w - 14)), "ax-g-id");
    text(g, 8, 32, clip(node.op, chars(w - 14)), "ax-g-op");
    text(g, w - 6, 46, time, timeCls);
    text(g, 8, 46, node.device || "", "ax-g-device ax-g-device-left");
    y = 61;
  } else {
    text(g, 10, 17, clip(node.id, chars(w - 60 - 10)), "ax-g-id");
    text(g, w - 8, 17, time, timeCls);
    text(g, 10, 32, clip(node.op, chars(w - 50)), "ax-g-op");
    text(g, w - 8, 32, node.device || "", "ax-g-device");
  }
  nodeLines(node, inBlock).forEach((line, k) =>
    text(g, 10, y + k * LINE_H, clip(line.text, chars(w - 16)), line.cls));
  g.addEventListener("click", () => {
    model.set("selected", node.id === model.get("selected") ? "" : node.id);
    model.save_changes();
  });
}

function draw(model, el) {
  const nodes = model.get("nodes") || [];
  const selected = model.get("selected");
  // what the engine did not place (an older kernel, or nodes and arrangement out of step)
  // is drawn as a plain node
  const arranged = model.get("arrangement") || [];
  const known = new Set(arranged.flatMap((item) => memberIds(item)));
  const items = arranged.concat(nodes.filter((n) => !known.has(n.id)).map((n) => ({ kind: "node", id: n.id })));
  // Fit the column: the boxes take the width there is, between the edges' margins.
  const avail = el.clientWidth || 272;
  BOX_W = Math.max(MIN_BOX, Math.min(MAX_BOX, avail - LEFT - RIGHT - 2));
  const scrolled = el.scrollTop; // emptied, the column would jump back to its top
  el.replaceChildren();
  const byId = new Map(nodes.map((n) => [n.id, n]));
  // which ported transforms the user unfolded: kept on the element, across redraws
  el._axOpenPorts = el._axOpenPorts || new Set();
  el._axOpenedFor = el._axOpenedFor || new Map(); // why each was unfolded by itself
  const out = { items: [], nodeAt: new Map(), seqs: 1, open: el._axOpenPorts,
    reasons: el._axOpenedFor, selected, byId };
  const top = { parent: null, id: 0 };
  const bottom = place(items, LEFT, 6, BOX_W, top, 0, byId, out);
  const width = LEFT + BOX_W + RIGHT;
  const root = svg("svg", { width, height: Math.max(bottom + GAP, 40), class: "ax-graph-svg" }, el);
  const defs = svg("defs", {}, root);
  const marker = svg("marker", { id: "ax-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5,
    markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse" }, defs);
  svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "ax-g-arrowhead" }, marker);
  for (const placed of out.items) {
    if (placed.kind === "block") drawBlock(root, placed);
    else if (placed.kind === "port") drawPort(root, placed, byId, () => draw(model, el), el._axOpenPorts);
  }
  const edges = svg("g", {}, root);
  const drawn = new Set();
  nodes.forEach((node) => {
    const b = out.nodeAt.get(node.id);
    if (!b) return;
    const refs = (node.inputs || []).map((r) => [r, false]).concat(
      (node.arg_refs || []).map(([, r]) => [r, true]));
    refs.forEach(([ref, isArg], k) => {
      const a = out.nodeAt.get(ref.split(":")[0]);
      if (!a) return;
      // An edge joins the two items that hold its ends in one sequence: a node, or the frame
      // of the block holding it. Inside a block only neighbours are joined (the rest would
      // cross the columns; argument inputs are written in the box).
      const pair = siblings(a, b);
      if (!pair) return;
      const [from, to] = pair;
      const key = `${out.items.indexOf(from)}-${out.items.indexOf(to)}-${isArg}`;
      if (drawn.has(key)) return;
      drawn.add(key);
      let d;
      if (to.index === from.index + 1 && !isArg) {
        const x = from.x + from.w / 2;
        d = `M ${x} ${from.y + from.h} L ${x} ${to.y}`;
      } else if (from.depth === 0) {
        // Skips and argument inputs bend out to the side so they never cross a box.
        const span = Math.abs(to.index - from.index);
        const right = !isArg;
        const xs = right ? LEFT + BOX_W : LEFT;
        const bend = (right ? 1 : -1) * (14 + 6 * Math.min(span, 4) + 3 * k);
        const ya = from.y + from.h / 2;
        const yb = to.y + Math.min(to.h / 2, 30);
        d = `M ${xs} ${ya} C ${xs + bend} ${ya}, ${xs + bend} ${yb}, ${xs} ${yb}`;
      } else return;
      svg("path", { d, class: isArg ? "ax-g-edge ax-g-edge-arg" : "ax-g-edge",
        "marker-end": "url(#ax-arrow)" }, edges);
    });
  });
  for (const placed of out.items) if (placed.kind === "node") drawNode(root, model, placed, selected);
  el.scrollTop = scrolled;
  showSelected(el);
}

// On a narrower panel the graph shrinks to a strip while a node is selected (graph_view.css),
// so that the node's controls sit beside the first row of images: the strip scrolls to keep
// the selected card in sight, and leaves its scroll alone while the card is already there.
function showSelected(el) {
  const card = el.querySelector(".ax-g-selected");
  if (!card || el.scrollHeight <= el.clientHeight) return;
  const seen = el.getBoundingClientRect();
  const box = card.getBoundingClientRect();
  if (box.top >= seen.top && box.bottom <= seen.bottom) return;
  el.scrollTop += box.top - seen.top - (el.clientHeight - box.height) / 2;
}

// A notebook in command mode binds keys to whatever is focused in it and not a text box: Notebook
// 7's arrows move between headings, and JupyterLab's `a`, `b` and `d d` insert and delete cells
// (a key pressed with a tile or a button of the panel focused deleted the panel's own cell).
// Lumino skips its shortcuts for a focused element marked with this attribute (an ancestor's
// mark is not enough: the focused element itself matches the shortcut's selector first), so
// every element of the panel that takes focus and is not a text box is marked.
const KEEP_KEYS = "data-lm-suppress-shortcuts";
const FOCUSABLE = [
  ".noUi-handle", "select", "button", "summary", "a[href]", "[tabindex]",
  "input[type=checkbox]", "input[type=radio]", "input[type=range]", "input[type=color]",
].map((s) => `${s}:not([${KEEP_KEYS}])`).join(", ");

function keepKeys(el, tries = 40) {
  const root = el.closest(".ax-explorer");
  if (!root) {
    if (tries > 0) requestAnimationFrame(() => keepKeys(el, tries - 1));
    return;
  }
  if (root.dataset.axKeys) return;
  root.dataset.axKeys = "1";
  // A click on what takes no focus (a graph's card, a caption, the panel's background) focuses
  // the nearest ancestor that does: it was the notebook's cell, so `b` then added a cell and
  // Ctrl+Z undid nothing of the graph. Focusable, the panel itself takes that focus (marked
  // below, as the rest), never by Tab.
  root.tabIndex = -1;
  const mark = (node) => {
    if (node.nodeType !== Node.ELEMENT_NODE) return; // a caption's text changed: nothing new
    if (node.matches(FOCUSABLE)) node.setAttribute(KEEP_KEYS, "true");
    node.querySelectorAll(FOCUSABLE).forEach((n) => n.setAttribute(KEEP_KEYS, "true"));
  };
  mark(root);
  // only what was added is looked at: every slider move rewrites captions and tiles, and a
  // scan of the whole panel each time would sit on the page's side of the edit
  new MutationObserver((records) => {
    for (const record of records) record.addedNodes.forEach(mark);
  }).observe(root, { childList: true, subtree: true });
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
    model.on("change:arrangement", redraw);
    model.on("change:selected", redraw);
    redraw();
    // the column's width is known only once the panel is laid out, and changes with the page
    let lastWidth = el.clientWidth;
    const resized = new ResizeObserver(() => {
      if (el.clientWidth !== lastWidth) {
        lastWidth = el.clientWidth;
        redraw();
      } else showSelected(el); // the strip opened or closed
    });
    resized.observe(el);
    return () => {
      resized.disconnect();
      model.off("change:nodes", redraw);
      model.off("change:arrangement", redraw);
      model.off("change:selected", redraw);
    };
  },
};

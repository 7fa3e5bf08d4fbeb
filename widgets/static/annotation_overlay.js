// Annotations drawn over a picture: boxes in their class colour with the class name, polygons
// and pixel masks translucent, keypoints with their skeleton. The drawing is an SVG laid over
// the picture (its viewBox in the image's own pixels, stretched with the picture), so the
// bitmap stays clean; names are HTML chips placed in percent, so they keep their size at any
// zoom. Which kinds show is a class on an ancestor: switching one off redraws nothing.
// Prepended to tile_grid.js (see tile_grid.py): one module, no imports.

const OVERLAY_KINDS = ["boxes", "names", "polygons", "masks", "keypoints"];
const SVG_NS = "http://www.w3.org/2000/svg";

function svgNode(tag, attrs, parent) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  if (parent) parent.appendChild(el);
  return el;
}

function overlayPng(view) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return `data:image/png;base64,${btoa(text)}`;
}

function pointsText(points) {
  return points.map(([x, y]) => `${x},${y}`).join(" ");
}

// Draw `data` (an overlay from render/overlay_data.py, or null) over the picture in `frame`, an
// element that wraps the picture exactly; the previous drawing there goes.
function drawOverlay(frame, data) {
  const old = frame.querySelector(":scope > .ax-overlay");
  old?.axNamesWatch?.disconnect();
  old?.remove();
  if (!data || !data.width || !data.height) return;
  const { width, height } = data;
  const root = document.createElement("div");
  root.className = "ax-overlay";
  const svg = svgNode("svg", {
    class: "ax-overlay-svg",
    viewBox: `0 0 ${width} ${height}`,
    preserveAspectRatio: "none",
    "data-width": width,
    "data-height": height,
  }, root);
  if (data.mask) {
    svgNode("image", {
      class: "ax-ov-masks", href: overlayPng(data.mask), x: 0, y: 0, width, height,
      preserveAspectRatio: "none",
    }, svg);
  }
  const polygons = svgNode("g", { class: "ax-ov-polygons" }, svg);
  (data.polygons || []).forEach((points, i) => {
    if (points.length < 3) return;
    const color = (data.polygon_colors || [])[i] || "#e6194b";
    svgNode("polygon", {
      class: "ax-ov-polygon", points: pointsText(points), fill: color, stroke: color,
    }, polygons);
  });
  const boxes = svgNode("g", { class: "ax-ov-boxes" }, svg);
  (data.boxes || []).forEach(([left, top, right, bottom], i) => {
    const shape = { x: left, y: top, width: Math.max(0, right - left), height: Math.max(0, bottom - top) };
    svgNode("rect", { ...shape, class: "ax-ov-halo" }, boxes);
    svgNode("rect", {
      ...shape, class: "ax-ov-box", stroke: data.colors[i], "data-box": i,
      "data-label": data.labels[i], "data-name": data.names[i],
    }, boxes);
  });
  const keypoints = svgNode("g", { class: "ax-ov-keypoints" }, svg);
  for (const object of data.keypoints || []) {
    const seen = (p) => p && p[2] > 0;
    for (const [a, b] of object.edges || []) {
      const p = object.points[a];
      const q = object.points[b];
      if (!seen(p) || !seen(q)) continue;
      svgNode("line", { class: "ax-ov-bone", x1: p[0], y1: p[1], x2: q[0], y2: q[1], stroke: object.color }, keypoints);
    }
    for (const p of object.points) {
      if (!seen(p)) continue;
      // A zero-length round-capped line: a dot of the same size on screen at any zoom.
      svgNode("path", { class: "ax-ov-point", d: `M${p[0]} ${p[1]}h0`, stroke: object.color }, keypoints);
    }
  }
  const names = document.createElement("div");
  names.className = "ax-ov-names";
  (data.boxes || []).forEach(([left, top, right], i) => {
    const chip = document.createElement("span");
    chip.className = "ax-ov-name";
    chip.textContent = data.names[i];
    // A box in the right part of the picture has its name flush with its right edge, where
    // the name is not cut off by the picture's edge.
    if (left > 0.6 * width) chip.style.right = `${100 - (100 * Math.min(width, right)) / width}%`;
    else chip.style.left = `${(100 * Math.max(0, left)) / width}%`;
    chip.style.top = `${(100 * Math.max(0, top)) / height}%`;
    chip.style.background = data.colors[i];
    chip.style.color = data.text_colors[i];
    chip.classList.toggle("ax-ov-name-inside", top < 0.1 * height);
    names.appendChild(chip);
  });
  root.appendChild(names);
  frame.appendChild(root);
  // Chips keep their size while the picture scales, so whether two overlap depends on the size
  // the picture is shown at: they are laid out again whenever it changes (a tile's size, a
  // zoom step, names switched back on).
  if (names.children.length && typeof ResizeObserver !== "undefined") {
    root.axNamesWatch = new ResizeObserver(() => separateNames(names));
    root.axNamesWatch.observe(names);
  }
}

// Move name chips that would cover one another or reach out of the picture (a small tile cuts
// them off): each chip is first pulled inside the picture's edges, then, taken from the top of
// the picture down, goes just below the chips it would cover (into its box, as a stack); where
// that runs off the picture's bottom, just above them instead. Offsets are in screen pixels, as
// chips are; `translate` adds to the chip's own transform (its place above or inside its box).
function separateNames(names) {
  const chips = [...names.children];
  chips.forEach((chip) => { chip.style.translate = ""; });
  if (!names.offsetParent) return; // hidden: laid out when shown again
  const bounds = names.getBoundingClientRect();
  const rects = chips.map((chip) => chip.getBoundingClientRect());
  const order = chips.map((_, i) => i)
    .sort((a, b) => rects[a].top - rects[b].top || rects[a].left - rects[b].left);
  const placed = [];
  for (const i of order) {
    const r = rects[i];
    const dx = Math.max(bounds.left - r.left, Math.min(0, bounds.right - r.right));
    const at = (dy) => ({ left: r.left + dx, right: r.right + dx, top: r.top + dy, bottom: r.bottom + dy });
    const hit = (box) => placed.find((p) => p.left < box.right - 0.5 && box.left < p.right - 0.5
      && p.top < box.bottom - 0.5 && box.top < p.bottom - 0.5);
    const first = Math.max(0, bounds.top - r.top);
    let dy = first;
    for (let other = hit(at(dy)); other; other = hit(at(dy))) dy = other.bottom - r.top + 1;
    if (r.bottom + dy > bounds.bottom && dy > first) {
      let up = first;
      for (let other = hit(at(up)); other; other = hit(at(up))) up = other.top - r.bottom - 1;
      if (r.top + up >= bounds.top) dy = up;
    }
    if (dx || dy) chips[i].style.translate = `${dx}px ${dy}px`;
    placed.push(at(dy));
  }
}

// Show only `kinds` under `root` (every overlay inside it follows).
function showOverlayKinds(root, kinds) {
  const shown = new Set(kinds || []);
  for (const kind of OVERLAY_KINDS) root.classList.toggle(`ax-ov-hide-${kind}`, !shown.has(kind));
}

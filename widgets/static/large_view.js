// Zoom, pan and comparison for the large view's pictures. Every picture pane is a box of one
// size (side by side when the view is wide enough, stacked below that); each picture fits its
// box at "fit", and one zoom and one centre (a fraction of the picture's width and height) hold
// for every box, so the panes stay locked to the same place. Past 1:1 the pixels are enlarged
// as squares (nearest neighbour), so noise, blur and JPEG blocks show. The "after" box can show
// the "before" picture in place: held (flicker) or beside a split line.
// Prepended to tile_grid.js (see tile_grid.py): one module, no imports.

const ZOOM_STEP = 1.25;
const MAX_PIXEL_SCALE = 32; // screen pixels per picture pixel of "after", at most
// As many boxes a row as keep each this wide: after and before side by side from ~700 px of
// view (each enlarged ~1.5x for a 224 px output), all three from ~1060 px, stacked below.
const MIN_BOX = 340;
const PANE_GAP = 12;

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

// One box of the view: its picture's frame (canvas and overlays) moved and sized inside it.
class ZoomBox {
  constructor(view, frame, p) {
    this.view = view; // the element the box is (overflow hidden, positioned)
    this.frame = frame;
    this.p = p;
    this.fit = 1; // screen pixels per picture pixel at "fit"
  }

  scale(zoom) {
    return this.fit * zoom;
  }

  // The frame's place for a zoom and a centre (fractions of the picture).
  place(zoom, cx, cy, w, h) {
    const s = this.scale(zoom);
    const width = this.p.width * s;
    const height = this.p.height * s;
    const left = w / 2 - cx * width;
    const top = h / 2 - cy * height;
    const style = this.frame.style;
    style.width = `${width}px`;
    style.height = `${height}px`;
    style.transform = `translate(${left}px, ${top}px)`;
  }
}

class LargeZoom {
  // `state` outlives one drawing of the view (moving to the next sample keeps zoom and place).
  constructor(root, state, onChange) {
    this.root = root;
    this.state = state;
    this.onChange = onChange;
    this.boxes = [];
    this.compare = null; // the "before" picture laid over the "after" box
    this.frameRequested = false;
    this.boxWidth = 0;
    this.boxHeight = 0;
    root.axZoom = this; // the browser tests time its steps
  }

  // A picture pane's box, holding `frame` (which holds the canvas); returns the box element.
  add(fig, frame, p) {
    const view = document.createElement("div");
    view.className = "ax-pane-view";
    fig.appendChild(view);
    view.appendChild(frame);
    const box = new ZoomBox(view, frame, p);
    this.boxes.push(box);
    this.listen(box);
    return view;
  }

  // The reference picture: zoom figures (1:1, 2x) are in its pixels.
  get ref() {
    return this.boxes.find((b) => b.p.role === "after") || this.boxes[0];
  }

  // The boxes' size from the width the view has: "after" and "before" side by side where two
  // boxes of MIN_BOX fit, as large as the width gives them; a third on their row only where
  // the height limits the two anyway (more columns would shrink every picture); one a row
  // below MIN_BOX.
  layout() {
    if (!this.boxes.length) return;
    const panes = this.root.querySelector(".ax-large-panes");
    const width = Math.max(160, (panes || this.root).clientWidth);
    const n = this.boxes.length;
    const ref = this.ref.p;
    const tallest = Math.max(240, Math.round(window.innerHeight * 0.7));
    const sized = (c) => {
      const w = Math.floor((width - PANE_GAP * (c - 1)) / c);
      const h = Math.min(tallest, Math.round((w * ref.height) / ref.width));
      return { w, h, fit: Math.min(w / ref.width, h / ref.height) };
    };
    let columns = 1;
    let best = sized(1);
    for (let c = 2; c <= n; c++) {
      const next = sized(c);
      if (next.w < MIN_BOX || (c > 2 && next.fit < best.fit)) break;
      columns = c;
      best = next;
    }
    const { w, h } = best;
    this.root.classList.toggle("ax-large-stacked", columns === 1);
    this.root.dataset.columns = String(columns);
    if (w === this.boxWidth && h === this.boxHeight) return this.apply();
    this.boxWidth = w;
    this.boxHeight = h;
    for (const box of this.boxes) {
      box.view.style.width = `${w}px`;
      box.view.style.height = `${h}px`;
      box.fit = Math.min(w / box.p.width, h / box.p.height);
    }
    if (this.compare) this.compare.fit = Math.min(w / this.compare.p.width, h / this.compare.p.height);
    if (this.state.pixels) this.state.zoom = this.state.pixels / this.ref.fit;
    this.apply();
  }

  // Screen pixels per picture pixel of "after" now.
  pixelScale() {
    return this.ref.scale(this.state.zoom);
  }

  setPixelScale(s, at) {
    this.setZoom(s / this.ref.fit, at);
    this.state.pixels = s; // held through a new layout: 1:1 stays 1:1 when the boxes resize
  }

  // `at`: {box, x, y} a point of a box (px from its corner) that stays where it is.
  setZoom(zoom, at) {
    const ref = this.ref;
    // from the smaller of fit and 1:1 (a picture larger than its box at fit can be seen at its
    // own size) up to square pixels of MAX_PIXEL_SCALE
    const least = Math.min(1, 1 / ref.fit);
    const most = Math.max(1, MAX_PIXEL_SCALE / ref.fit);
    const next = clamp(zoom, least, most);
    const st = this.state;
    if (at) {
      const { box, x, y } = at;
      const before = box.scale(st.zoom);
      const after = box.scale(next);
      const u = (x - this.boxWidth / 2) / (box.p.width * before) + st.cx;
      const v = (y - this.boxHeight / 2) / (box.p.height * before) + st.cy;
      st.cx = u - (x - this.boxWidth / 2) / (box.p.width * after);
      st.cy = v - (y - this.boxHeight / 2) / (box.p.height * after);
    }
    st.zoom = next;
    st.pixels = 0; // a zoom relative to fit (a wheel step, + or -): it follows the boxes' size
    this.clampCentre();
    this.request();
  }

  zoomBy(factor, at) {
    this.setZoom(this.state.zoom * factor, at);
  }

  fitAll() {
    this.state.zoom = 1;
    this.state.pixels = 0;
    this.state.cx = 0.5;
    this.state.cy = 0.5;
    this.request();
  }

  panBy(box, dx, dy) {
    const s = box.scale(this.state.zoom);
    this.state.cx -= dx / (box.p.width * s);
    this.state.cy -= dy / (box.p.height * s);
    this.clampCentre();
    this.request();
  }

  // A zoomed picture is never dragged out of its box: the centre stays where the box is full.
  clampCentre() {
    const st = this.state;
    const ref = this.ref;
    const s = ref.scale(st.zoom);
    const fx = this.boxWidth / (ref.p.width * s);
    const fy = this.boxHeight / (ref.p.height * s);
    st.cx = fx >= 1 ? 0.5 : clamp(st.cx, fx / 2, 1 - fx / 2);
    st.cy = fy >= 1 ? 0.5 : clamp(st.cy, fy / 2, 1 - fy / 2);
  }

  // One redraw a frame, however many wheel or drag events came.
  request() {
    if (this.frameRequested) return;
    this.frameRequested = true;
    requestAnimationFrame(() => {
      this.frameRequested = false;
      this.apply();
    });
  }

  apply() {
    const { zoom, cx, cy } = this.state;
    for (const box of this.boxes) box.place(zoom, cx, cy, this.boxWidth, this.boxHeight);
    if (this.compare) this.compare.place(zoom, cx, cy, this.boxWidth, this.boxHeight);
    this.showCompare();
    this.root.classList.toggle("ax-zoomed", zoom > 1.0001);
    this.root.dataset.pixelScale = this.pixelScale().toFixed(3);
    this.root.dataset.centre = `${cx.toFixed(4)},${cy.toFixed(4)}`;
    if (this.onChange) this.onChange();
  }

  // ---- the "before" picture in the "after" box ----------------------------------------------
  // `p`: the pane to compare with; its picture drawn once more (an image, not a second canvas).
  addCompare(p) {
    const after = this.boxes.find((b) => b.p.role === "after");
    if (!after || !p || p === after.p) return;
    const layer = document.createElement("div");
    layer.className = "ax-compare-layer";
    const frame = document.createElement("div");
    frame.className = "ax-compare-frame";
    const img = document.createElement("img");
    img.className = "ax-compare-picture";
    img.alt = p.role;
    const canvas = document.createElement("canvas");
    drawPixels(canvas, p);
    img.src = canvas.toDataURL();
    frame.appendChild(img);
    layer.appendChild(frame);
    const tag = document.createElement("span");
    tag.className = "ax-compare-tag";
    tag.textContent = p.role;
    layer.appendChild(tag);
    const line = document.createElement("div");
    line.className = "ax-split-line";
    after.view.appendChild(layer);
    after.view.appendChild(line);
    const afterTag = document.createElement("span");
    afterTag.className = "ax-compare-tag ax-compare-tag-after";
    afterTag.textContent = "after";
    after.view.appendChild(afterTag);
    this.compare = new ZoomBox(layer, frame, p);
    this.compareLayer = layer;
    this.splitLine = line;
    this.afterTag = afterTag;
  }

  // Flicker shows the whole "before" picture; split shows its left part up to the line.
  showCompare() {
    if (!this.compare) return;
    const { flicker, split, splitAt } = this.state;
    const shown = flicker || split;
    const layer = this.compareLayer;
    if (layer.hidden !== !shown) layer.hidden = !shown;
    const cut = flicker ? 0 : 100 - splitAt;
    layer.style.clipPath = `inset(0 ${cut}% 0 0)`;
    this.splitLine.hidden = !split || flicker;
    this.splitLine.style.left = `${splitAt}%`;
    this.afterTag.hidden = !split || flicker;
    this.root.classList.toggle("ax-flicker", Boolean(flicker));
    this.root.dataset.compare = flicker ? "flicker" : split ? "split" : "off";
  }

  // ---- pointer --------------------------------------------------------------------------------
  listen(box) {
    const view = box.view;
    view.addEventListener(
      "wheel",
      (e) => {
        e.preventDefault(); // the notebook does not scroll while the picture zooms
        const r = view.getBoundingClientRect();
        const factor = Math.exp(-clamp(e.deltaY, -200, 200) * 0.002);
        this.zoomBy(factor, { box, x: e.clientX - r.left, y: e.clientY - r.top });
      },
      { passive: false },
    );
    let drag = null;
    view.addEventListener("pointerdown", (e) => {
      if (e.button !== 0) return;
      // a drag's preventDefault keeps focus where it was (the notebook): the keys are the view's
      view.closest(".ax-large")?.focus({ preventScroll: true });
      if (this.state.split && this.nearSplit(box, e)) {
        drag = { split: true };
      } else {
        if (this.state.zoom <= 1.0001) return;
        drag = { x: e.clientX, y: e.clientY };
      }
      view.setPointerCapture(e.pointerId);
      view.classList.add("ax-dragging");
      e.preventDefault();
    });
    view.addEventListener("pointermove", (e) => {
      if (!drag) return;
      if (drag.split) {
        const r = view.getBoundingClientRect();
        this.state.splitAt = clamp((100 * (e.clientX - r.left)) / r.width, 0, 100);
        this.request();
        return;
      }
      this.panBy(box, e.clientX - drag.x, e.clientY - drag.y);
      drag.x = e.clientX;
      drag.y = e.clientY;
    });
    const end = () => {
      drag = null;
      view.classList.remove("ax-dragging");
    };
    view.addEventListener("pointerup", end);
    view.addEventListener("pointercancel", end);
  }

  nearSplit(box, e) {
    if (box !== this.boxes.find((b) => b.p.role === "after")) return false;
    const r = box.view.getBoundingClientRect();
    return Math.abs(e.clientX - (r.left + (r.width * this.state.splitAt) / 100)) <= 10;
  }

  // Where a point of the screen falls on `box`'s picture, as fractions (null: off the picture).
  fraction(box, clientX, clientY) {
    const r = box.frame.getBoundingClientRect();
    const u = (clientX - r.left) / r.width;
    const v = (clientY - r.top) / r.height;
    return u >= 0 && u < 1 && v >= 0 && v < 1 ? [u, v] : null;
  }
}

// The view's controls: zoom out/in, its figure, fit, 1:1, 2x, 4x, hold-to-see-before, split.
function zoomBar(parent, zoom) {
  const bar = document.createElement("div");
  bar.className = "ax-zoom-bar";
  parent.appendChild(bar);
  const button = (text, title, cls, action) => {
    const b = document.createElement("button");
    b.className = `jupyter-button ax-zoom-button ${cls}`;
    b.textContent = text;
    b.title = title;
    if (action) b.addEventListener("click", action);
    bar.appendChild(b);
    return b;
  };
  button("−", "zoom out (− or the wheel)", "ax-zoom-out", () => zoom.zoomBy(1 / ZOOM_STEP));
  const figure = document.createElement("span");
  figure.className = "ax-zoom-figure";
  figure.title = "screen pixels per pixel of the output";
  bar.appendChild(figure);
  button("+", "zoom in (+ or the wheel); drag to move", "ax-zoom-in", () => zoom.zoomBy(ZOOM_STEP));
  button("fit", "the whole picture (0)", "ax-zoom-fit", () => zoom.fitAll());
  button("1:1", "one screen pixel per pixel (1)", "ax-zoom-1", () => zoom.setPixelScale(1));
  button("2×", "two screen pixels per pixel (2)", "ax-zoom-2", () => zoom.setPixelScale(2));
  button("4×", "four screen pixels per pixel, nearest (4)", "ax-zoom-4", () => zoom.setPixelScale(4));
  if (!zoom.compare) return figure;
  const role = zoom.compare.p.role;
  const hold = button(`hold: ${role}`, `hold (or hold B) to see ${role} in place of after`,
    "ax-flicker-button");
  const flick = (on) => () => { zoom.state.flicker = on; zoom.request(); };
  hold.addEventListener("pointerdown", flick(true));
  hold.addEventListener("pointerup", flick(false));
  hold.addEventListener("pointerleave", flick(false));
  const split = button("split", `${role} left of a line, after right of it (S); drag the line`,
    "ax-split-button", () => {
      zoom.state.split = !zoom.state.split;
      split.classList.toggle("mod-active", zoom.state.split);
      split.setAttribute("aria-pressed", String(zoom.state.split));
      zoom.request();
    });
  split.classList.toggle("mod-active", Boolean(zoom.state.split));
  split.setAttribute("aria-pressed", String(Boolean(zoom.state.split)));
  return figure;
}

// Keys of the large view beyond moving and closing: true when the key was taken.
function zoomKey(zoom, e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return false;
  const k = e.key;
  if (e.type === "keyup") {
    if (k === "b" || k === "B") {
      zoom.state.flicker = false;
      zoom.request();
      return true;
    }
    return false;
  }
  if (k === "+" || k === "=") zoom.zoomBy(ZOOM_STEP);
  else if (k === "-" || k === "_") zoom.zoomBy(1 / ZOOM_STEP);
  else if (k === "0") zoom.fitAll();
  else if (k === "1" || k === "2" || k === "4") zoom.setPixelScale(Number(k));
  else if ((k === "b" || k === "B") && zoom.compare) {
    zoom.state.flicker = true;
    zoom.request();
  } else if ((k === "s" || k === "S") && zoom.compare && !e.repeat) {
    zoom.root.querySelector(".ax-split-button")?.click();
  } else return false;
  return true;
}

function newZoomState() {
  return { zoom: 1, cx: 0.5, cy: 0.5, flicker: false, split: false, splitAt: 50 };
}

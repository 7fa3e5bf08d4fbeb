// The output as tiles: one picture per sample with its caption as text, wrapping to the width
// it is given (never scrolling sideways), and a large view of one sample: its output at full
// resolution beside its input and the decoded original, its facts and draws, and the values
// under the pointer. Arrow keys move between samples, Esc closes.
//
// Pictures arrive apart from the tiles' state, named by a hash of their bytes
// (tile_pictures.py), and only those this page does not hold. Each is decoded off the main
// thread as soon as it arrives (WebCodecs' ImageDecoder; createImageBitmap where there is none)
// and drawn on its tile's canvas; a tile shows its new caption together with its new pixels,
// each tile as soon as its own are decoded, and a picture a newer state no longer asks for is
// dropped unseen. Measured in JupyterLab in Chromium (benchmarks/bench_browser.py,
// BENCHMARKS.md): an image element's decode() waits for the page's next frames (the compositor
// decodes it), ~30 ms on a busy page; createImageBitmap of a Blob pays a trip to the browser's
// blob registry per picture; ImageDecoder decodes on its own thread, tied to no frame.

// Lumino (JupyterLab, Notebook 7) skips its keyboard shortcuts inside an element marked so:
// without it, arrows and Esc would move between notebook cells instead.
const KEEP_KEYS = "data-lm-suppress-shortcuts";
// Up to this size a narrow output still shows two tiles a row (tile_grid.css); larger sizes
// may take the whole row.
const LARGE_TILE = 480;
// A tile's own width around its pictures (padding and border, tile_grid.css) and the gaps
// between tiles and between a pair's pictures: what "fit N a row" leaves for the pictures.
const TILE_CHROME = 10;
const GAP = 8;

function h(tag, cls, parent, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  if (parent) parent.appendChild(el);
  return el;
}

// Every redraw rewrites sixteen captions: writing only what changed spares the page a layout.
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

function setStyle(el, name, value) {
  if (el.style.getPropertyValue(name) !== value) el.style.setProperty(name, value);
}

function setHidden(el, hidden) {
  if (el.hidden !== hidden) el.hidden = hidden;
}

const clock = () => performance.timeOrigin + performance.now();

// A picture's pixels (`type`: its MIME type), decoded off the main thread: a VideoFrame or an
// ImageBitmap (null where the bytes cannot be decoded, or the decoding was stopped: shown as no
// picture, not an error that stops the rest). With it, a function that stops the decoding: a
// drag's pictures that a newer frame replaced before they were decoded are never decoded, so
// the newest frame's decoders have the page's cores to themselves.
function decodePicture(view, type) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  // ImageDecoder only in a secure context (localhost, https): elsewhere createImageBitmap
  if (typeof ImageDecoder !== "undefined") {
    const decoder = new ImageDecoder({ data: bytes, type });
    let open = true;
    const stop = () => { if (open) { open = false; decoder.close(); } };
    const decoded = decoder.decode().then(
      (result) => { stop(); return result.image; },
      () => { stop(); return null; },
    );
    return [decoded, stop];
  }
  return [createImageBitmap(new Blob([bytes], { type })).catch(() => null), () => {}];
}

// The bytes as a data URL, for an image element (the large view's first look at a tile).
function dataUrl(view, type) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return `data:${type};base64,${btoa(text)}`;
}

function release(picture) {
  picture?.close();
}

// Decoded pixels on a tile's canvas, at the picture's own resolution (a preview is smaller:
// the page's style sizes the canvas, not its pixels).
function drawPicture(canvas, picture) {
  const width = picture.displayWidth ?? picture.width;
  const height = picture.displayHeight ?? picture.height;
  if (canvas.width !== width) canvas.width = width;
  if (canvas.height !== height) canvas.height = height;
  canvas.getContext("2d").drawImage(picture, 0, 0);
}

const TYPED = {
  uint8: Uint8Array, int8: Int8Array, uint16: Uint16Array, int16: Int16Array,
  uint32: Uint32Array, int32: Int32Array, float32: Float32Array, float64: Float64Array,
};

function typed(view, dtype) {
  const Kind = TYPED[dtype] || Uint8Array;
  // A copy: a buffer from the socket may not sit on the alignment a typed array needs.
  const bytes = view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength);
  return new Kind(bytes);
}

function drawPixels(canvas, pane) {
  const { width, height } = pane;
  canvas.width = width;
  canvas.height = height;
  const rgb = new Uint8Array(pane.pixels.buffer, pane.pixels.byteOffset, pane.pixels.byteLength);
  const image = new ImageData(width, height);
  const rgba = image.data;
  for (let i = 0, j = 0; i < rgb.length; i += 3, j += 4) {
    rgba[j] = rgb[i];
    rgba[j + 1] = rgb[i + 1];
    rgba[j + 2] = rgb[i + 2];
    rgba[j + 3] = 255;
  }
  canvas.getContext("2d").putImageData(image, 0, 0);
}

function formatValue(v, dtype) {
  if (dtype.startsWith("float")) return Number.isInteger(v) ? v.toFixed(1) : v.toPrecision(4);
  return String(v);
}

// A tile's caption of draws ("rotate.angle=17.98 blur applied flip.horizontal=1 skipped hue")
// cut into what must read together: each value with its name, "blur applied", "skipped hue"
// (the words augexplorer.engine.result.caption_draws writes), so a line never ends "flip.
// horizontal=" with its value on the next.
function drawGroups(text) {
  const groups = [];
  for (const word of text.split(" ").filter(Boolean)) {
    const last = groups.length - 1;
    const joins = last >= 0 && (word === "applied" || groups[last] === "skipped");
    if (joins) groups[last] += ` ${word}`;
    else groups.push(word);
  }
  return groups;
}

// The crop window a random crop drew, outlined on its "before" picture (in that picture's
// pixels, placed in fractions so it follows the picture's displayed size).
function drawWindow(frame, p) {
  const [x, y, w, hgt] = p.window;
  const box = h("div", "ax-crop-window", frame);
  box.style.left = `${(100 * x) / p.width}%`;
  box.style.top = `${(100 * y) / p.height}%`;
  box.style.width = `${(100 * w) / p.width}%`;
  box.style.height = `${(100 * hgt) / p.height}%`;
  box.title = `crop window: ${Math.round(w)} wide, ${Math.round(hgt)} high at x ${Math.round(x)}, y ${Math.round(y)}`;
  box.dataset.window = p.window.join(",");
}

class TileGrid {
  constructor(model, el) {
    this.model = model;
    this.el = el;
    this.tileEls = [];
    this.drawn = 0;
    this.frame = 0; // every drawing of the tiles, numbered
    this.newest = -1; // the newest of the kernel's frames drawn (TileGrid.frame)
    this.newestTiles = [];
    this.decoded = new Map(); // picture name -> Promise of its pixels, decoded (null: cannot)
    this.decoding = new Map(); // picture name -> what stops its decoding, while it runs
    this.bytes = new Map(); // picture name -> [its encoded bytes, their MIME type], as they came
    this.waiting = new Map(); // picture name -> callbacks for a picture not here yet
    this.fresh = new Set(); // names arrived since the tiles' state last changed
    this.asked = new Set(); // names asked of the kernel, not here yet
    this.times = {}; // when the last frame arrived, was decoded and drawn (benchmarks)
    el.axTimes = this.times;
    el.classList.add("ax-tiles-root");
    el.setAttribute(KEEP_KEYS, "true");
    this.large = h("div", "ax-large", el);
    this.large.tabIndex = 0;
    this.large.setAttribute(KEEP_KEYS, "true"); // the focused element itself (graph_view.js)
    this.large.hidden = true;
    this.grid = h("div", "ax-tiles", el);
    this.large.addEventListener("keydown", (e) => this.key(e));
    this.large.addEventListener("keyup", (e) => {
      if (this.zoom && zoomKey(this.zoom, e)) e.stopPropagation();
    });
    this.zoomState = newZoomState(); // kept while moving between samples (large_view.js)
    // The boxes follow the view's width (a resized page, a file browser opened or closed).
    this.resize = new ResizeObserver(() => {
      this.side = 0; // measured again: the squares' side followed the view's width
      this.zoom?.layout();
      this.showScale();
      this.fit();
    });
    // The grid's layout as last measured (size, pictures a tile, tiles a row, tiles): a redraw
    // with the same reads no width. A slider's echo has just changed the page when pictures
    // arrive, so a width read there forces a layout before the frame would have made it
    // (3.4 ms of a 7.5 ms handler in a trace of a move, BENCHMARKS.md).
    this.layout = "";
    this.side = 0; // the first picture square's side in page pixels (0: not measured)
    this.resize.observe(this.large);
    this.resize.observe(this.grid);
  }

  // ---- pictures ---------------------------------------------------------------------------
  // Pictures from the kernel (before the state that names them): decoding starts at once.
  received(msg, buffers) {
    const keys = msg.keys || [];
    this.times.pictures = clock();
    this.times.firstDecoded = 0;
    keys.forEach((key, i) => {
      const type = (msg.types || [])[i] || "image/jpeg";
      this.bytes.set(key, [buffers[i], type]);
      const [decoding, stop] = decodePicture(buffers[i], type);
      this.decoding.set(key, stop);
      const decoded = decoding.then((picture) => {
        if (this.decoding.get(key) === stop) this.decoding.delete(key);
        if (picture) {
          this.times.bitmaps = clock();
          this.times.firstDecoded ||= this.times.bitmaps;
        }
        return picture;
      });
      this.decoded.set(key, decoded);
      this.fresh.add(key);
      this.asked.delete(key);
      for (const resolve of this.waiting.get(key) || []) resolve(decoded);
      this.waiting.delete(key);
    });
    this.times.handed = clock(); // every picture on its way to be decoded
    // the tiles these pictures belong to: drawn now, their state behind is then skipped
    if (msg.tiles) this.drawTiles(msg.tiles, msg.frame);
  }

  // The tiles' state changed: drawn, unless a message already drew this frame or a newer one.
  stateChanged() {
    if (this.model.get("frame") <= this.newest) return;
    this.drawTiles();
  }

  picture(key) {
    if (this.decoded.has(key)) return this.decoded.get(key);
    return new Promise((resolve) => {
      if (!this.waiting.has(key)) this.waiting.set(key, []);
      this.waiting.get(key).push(resolve);
    });
  }

  // Only the pictures the tiles name now (and any that came for the next state) are kept; the
  // page asks for those it lacks (a view opened after they were sent).
  keepOnly(tiles) {
    const named = new Set();
    for (const tile of tiles) for (const key of tile.pictures || []) if (key) named.add(key);
    for (const [key, decoded] of [...this.decoded]) {
      if (named.has(key) || this.fresh.has(key)) continue;
      this.decoded.delete(key);
      this.bytes.delete(key);
      this.decoding.get(key)?.(); // not decoded yet: never will be (a newer frame replaced it)
      this.decoding.delete(key);
      decoded.then(release); // a tile still decoding it checks it is wanted before drawing
    }
    this.fresh.clear();
    for (const key of this.waiting.keys()) if (!named.has(key)) this.waiting.delete(key);
    const missing = [...named].filter((k) => !this.decoded.has(k) && !this.asked.has(k));
    if (missing.length) {
      missing.forEach((k) => this.asked.add(k));
      this.model.send({ event: "want", keys: missing });
    }
  }

  // ---- tiles ------------------------------------------------------------------------------
  // `tiles` of the kernel's frame `frame`; none given: the newest there is (the model's state,
  // or the tiles a message brought ahead of it).
  drawTiles(given, at) {
    let tiles = given;
    let frame = at;
    if (tiles === undefined) {
      frame = this.model.get("frame") || 0;
      tiles = frame >= this.newest ? this.model.get("tiles") || [] : this.newestTiles;
      frame = Math.max(frame, this.newest);
    }
    this.newest = frame;
    this.newestTiles = tiles;
    const size = this.model.get("size");
    const per = Math.max(1, ...tiles.map((t) => (t.pictures || []).length));
    setStyle(this.grid, "--ax-tile", `${size * per + 8 * (per - 1)}px`);
    setStyle(this.grid, "--ax-picture", `${size}px`);
    this.grid.classList.toggle("ax-tiles-pairs", per > 1);
    // past the sizes a grid is browsed at, a size asks for pictures that large: one a row
    this.grid.classList.toggle("ax-tiles-large", size > LARGE_TILE);
    const perRow = this.model.get("per_row") || 0;
    setStyle(this.grid, "grid-template-columns", perRow > 0 ? `repeat(${perRow}, minmax(0, 1fr))` : "");
    this.perTile = per;
    this.el.classList.toggle("ax-stale", Boolean(this.model.get("stale")));
    const shape = tiles.map((t) => (t.pictures || []).length).join(",");
    if (shape !== this.shape) this.build(tiles, shape);
    const layout = `${size}|${per}|${perRow}|${shape}|${this.grid.hidden}`;
    if (layout !== this.layout) {
      this.layout = layout;
      this.side = 0;
      this.fit();
    }
    const drawing = ++this.frame;
    this.times.frame = frame;
    if (given === undefined) this.times.state = clock();
    this.keepOnly(tiles);
    // The old pictures stay on screen until the new ones replace them: no flicker.
    this.oneScale(tiles, size);
    Promise.all(tiles.map((tile, i) => this.showTile(this.tileEls[i], tile))).then(() => {
      if (drawing !== this.frame) return; // a newer state came: it says when it is drawn
      this.times.drawn = clock();
      // Tests and the benchmark wait on this: every tile shows this state's pixels.
      this.el.dataset.drawn = String(++this.drawn);
    });
    if (this.model.get("opened") >= 0) this.drawLarge();
  }

  // "Fit N a row": the picture side that N tiles a row leave at the grid's width, said to the
  // kernel, which encodes the pictures at it (and sets `size` to it, which draws again here).
  fit() {
    const perRow = this.model.get("per_row") || 0;
    const width = this.grid.clientWidth;
    if (perRow <= 0 || this.grid.hidden || !width) return;
    const per = this.perTile || 1;
    const tile = (width - GAP * (perRow - 1)) / perRow;
    const side = Math.floor((tile - TILE_CHROME - GAP * (per - 1)) / per);
    // (a side out of the size control's range is clamped there: not asked for again)
    if (side === this.model.get("fitted") || Math.abs(side - this.model.get("size")) < 2) return;
    this.model.set("fitted", side);
    this.model.save_changes();
  }

  // One tile: its caption at once where its pixels stay as they are; otherwise caption and
  // pixels together once its pictures are decoded, unless a newer state wants others by then.
  showTile(fig, tile) {
    const keys = tile.pictures || [];
    const wanted = keys.join("|");
    fig.axTile = tile;
    fig.axWanted = wanted;
    if (fig.axShown === wanted) {
      this.fill(fig, tile, null);
      return Promise.resolve();
    }
    return Promise.all(keys.map((k) => (k ? this.picture(k) : null))).then((pictures) => {
      if (fig.axWanted !== wanted || !fig.isConnected) return; // stale: never shown
      this.times.decoded = clock();
      this.fill(fig, fig.axTile, pictures);
      fig.axShown = wanted;
      this.drawOverlay(fig);
    });
  }

  build(tiles, shape) {
    this.shape = shape;
    this.grid.replaceChildren();
    this.tileEls = tiles.map((tile) => {
      const fig = h("figure", "ax-tile", this.grid);
      fig.tabIndex = 0;
      fig.setAttribute(KEEP_KEYS, "true");
      const pictures = h("div", "ax-tile-pictures", fig);
      (tile.pictures || []).forEach(() => {
        const box = h("div", "ax-tile-picture", pictures);
        h("canvas", "", h("span", "ax-ov-frame", box)); // the frame carries annotations
        h("span", "ax-tile-tag", box);
      });
      h("pre", "ax-tile-values", fig);
      const cap = h("figcaption", "", fig);
      const line = h("div", "ax-tile-line", cap);
      h("span", "ax-tile-index", line);
      h("span", "ax-tile-label", line);
      h("span", "ax-tile-scale", line).title =
        "shown at this scale of its pixels: every tile of the grid at one scale";
      h("div", "ax-tile-draws", cap);
      fig.addEventListener("click", () => this.open(Number(fig.dataset.index)));
      fig.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          this.open(Number(fig.dataset.index));
        }
      });
      return fig;
    });
    const first = this.grid.querySelector("canvas");
    // Tests wait on this picture: its data-key (its bytes' name) changes with its pixels.
    if (first) first.classList.add("ax-grid");
  }

  // Every tile of the grid at one scale: the largest picture fills its square, the others are
  // enlarged or reduced by the same factor (a 256 px image beside 800 px ones is drawn smaller,
  // as it is). `this.gridScale`: picture pixels to the square's `size`.
  oneScale(tiles, size) {
    let side = 0;
    for (const tile of tiles) {
      for (const [w, hgt] of tile.sizes || []) side = Math.max(side, w, hgt);
    }
    this.gridScale = side ? size / side : 0;
    this.showScale();
  }

  // The scale on screen, written on every tile (the squares may be narrower than `size`: a
  // narrow column shrinks them, all alike); square pixels from 2x, where smoothing would blur.
  showScale() {
    const size = this.model.get("size");
    if (!this.side) {
      const first = this.grid.querySelector(".ax-tile-picture");
      this.side = first ? Math.min(first.clientWidth, first.clientHeight) : 0;
    }
    const side = this.side;
    const shown = this.gridScale && side ? (this.gridScale * side) / size : 0;
    this.el.classList.toggle("ax-tiles-pixelated", shown >= 2);
    this.el.dataset.scale = shown ? shown.toFixed(3) : "";
    const text = shown ? `${Math.round(shown * 100)}%` : "";
    for (const fig of this.tileEls) setText(fig.querySelector(".ax-tile-scale"), text);
  }

  // `pictures`: the tile's new pictures, decoded; null where its pixels stay as they are.
  fill(fig, tile, pictures) {
    const index = String(tile.index);
    if (fig.dataset.index !== index) fig.dataset.index = index;
    const title = `${tile.file || ""}\nclick for the large view`.trim();
    if (fig.title !== title) fig.title = title;
    const boxes = fig.querySelectorAll(".ax-tile-picture");
    fig.classList.toggle("ax-tile-preview", Boolean(tile.preview));
    (tile.pictures || []).forEach((key, k) => {
      const tag = boxes[k].querySelector(".ax-tile-tag");
      setText(tag, (tile.tags || [])[k] || "");
      setHidden(tag, !tag.textContent);
      if (pictures) {
        const canvas = boxes[k].querySelector("canvas");
        let drawn = Boolean(pictures[k]);
        try {
          if (drawn) drawPicture(canvas, pictures[k]);
        } catch {
          drawn = false; // released meanwhile: a newer picture is on its way
        }
        canvas.dataset.key = drawn ? key : "";
        setHidden(canvas, !drawn);
      }
      // its place in the square at the grid's one scale (tile_grid.css: fractions of the side)
      const [w, hgt] = (tile.sizes || [])[k] || [0, 0];
      const frame = boxes[k].querySelector(".ax-ov-frame");
      const scaled = Boolean(this.gridScale && w && hgt);
      frame.classList.toggle("ax-scaled", scaled);
      if (scaled) {
        const size = this.model.get("size");
        setStyle(frame, "--ax-fw", String((w * this.gridScale) / size));
        setStyle(frame, "--ax-fh", String((hgt * this.gridScale) / size));
      }
    });
    const values = fig.querySelector(".ax-tile-values");
    setText(values, tile.text || "");
    setHidden(values, !tile.text);
    setText(fig.querySelector(".ax-tile-index"), tile.name || `#${tile.index}`);
    setText(fig.querySelector(".ax-tile-label"), tile.label || "");
    const draws = fig.querySelector(".ax-tile-draws");
    if (draws.axText !== (tile.draws || "")) {
      draws.axText = tile.draws || "";
      draws.replaceChildren(...drawGroups(draws.axText).flatMap((group, k) => {
        const span = document.createElement("span");
        span.className = "ax-draw";
        // inside a value, a line may break after "=" only where the value is wider than the
        // tile (a long node name): elsewhere lines break between values (tile_grid.css)
        span.textContent = group.replaceAll("=", "=\u200b");
        return k ? [" ", span] : [span];
      }));
    }
    setHidden(draws, !tile.draws);
  }

  // Annotations over every picture that has some (annotation_overlay.js); a tile whose new
  // pixels are still on their way gets its own when they are drawn.
  drawOverlays() {
    showOverlayKinds(this.el, this.model.get("overlay_kinds"));
    this.tileEls.forEach((fig) => {
      if (fig.axShown === fig.axWanted) this.drawOverlay(fig);
    });
  }

  drawOverlay(fig) {
    const overlays = this.model.get("overlays") || [];
    const i = this.tileEls.indexOf(fig);
    fig.querySelectorAll(".ax-ov-frame").forEach((frame, k) => {
      drawOverlay(frame, frame.querySelector("canvas")?.hidden ? null : overlays[i]?.[k]);
    });
  }

  // ---- large view -------------------------------------------------------------------------
  // Tiles are named by their sample's place in the batch; a node inside a conditional block
  // has tiles only for the samples where the block ran, so moving on goes to the next tile.
  neighbour(index, by) {
    const tiles = this.model.get("tiles") || [];
    const count = tiles.length;
    const at = tiles.findIndex((t) => t.index === index);
    return count ? tiles[(((at + by) % count) + count) % count].index : index;
  }

  open(index) {
    const tiles = this.model.get("tiles") || [];
    if (!tiles.length) return;
    const next = tiles.some((t) => t.index === index) ? index : tiles[0].index;
    if (next === this.model.get("opened")) this.drawLarge();
    this.model.set("opened", next); // redraws through change:opened
    this.model.save_changes();
    this.large.focus({ preventScroll: true });
    this.large.scrollIntoView({ block: "nearest" });
  }

  close() {
    const index = this.model.get("opened");
    this.zoomState = newZoomState(); // the next sample opened starts whole
    this.model.set("opened", -1);
    this.model.save_changes();
    const tile = this.tileEls.find((t) => Number(t.dataset.index) === index);
    if (tile) tile.focus({ preventScroll: true });
  }

  key(e) {
    const index = this.model.get("opened");
    if (index < 0) return;
    const moves = { ArrowLeft: -1, ArrowUp: -1, ArrowRight: 1, ArrowDown: 1 };
    if (e.key in moves) this.open(this.neighbour(index, moves[e.key]));
    else if (e.key === "Escape") this.close();
    else if (!(this.zoom && zoomKey(this.zoom, e))) return;
    e.preventDefault();
    e.stopPropagation();
  }

  drawLarge() {
    const index = this.model.get("opened");
    this.el.classList.toggle("ax-large-open", index >= 0);
    // The panel gives an open large view its whole width where it is narrow (graph_view.css);
    // a class on the panel's body, as a `:has()` rule there cost every zoom step a restyle.
    this.el.closest(".ax-body")?.classList.toggle("ax-body-large-open", index >= 0);
    this.large.hidden = index < 0;
    this.grid.hidden = index >= 0;
    if (index < 0) return;
    const view = this.model.get("large") || {};
    const ready = view.index === index;
    const tile = (this.model.get("tiles") || []).find((t) => t.index === index) || {};
    const root = this.large;
    root.replaceChildren();
    this.zoom = null;
    root.classList.toggle("ax-large-loading", !ready);
    const head = h("div", "ax-large-head", root);
    const tiles = this.model.get("tiles") || [];
    const place = tiles.findIndex((t) => t.index === index);
    // "#2" names the sample as its tile does (its place in the batch, from 0); "3 / 8" is where
    // the view stands among the tiles, as an image viewer counts.
    // A tile with a name of its own (Variety's "draw 3") is no sample of the batch: its name.
    const named = tile.name || `#${index}`;
    const title = h("span", "ax-large-title", head, `${named} · ${place + 1} / ${tiles.length}`);
    title.title = tile.name
      ? `${tile.name} of the one image: tile ${place + 1} of the ${tiles.length} shown`
      : `sample #${index} of the batch: tile ${place + 1} of the ${tiles.length} shown`;
    h("span", "ax-large-label", head, tile.label || "");
    h("span", "ax-large-spacer", head);
    const button = (text, title, action, cls) => {
      const b = h("button", `jupyter-button ax-large-button ${cls}`, head, text);
      b.title = title;
      b.addEventListener("click", action);
    };
    const go = (by) => () => this.open(this.neighbour(index, by));
    const unit = tile.name ? "draw" : "sample"; // Variety's tiles are draws of one image
    button("◀", `previous ${unit} (←)`, go(-1), "ax-large-prev");
    button("▶", `next ${unit} (→)`, go(1), "ax-large-next");
    button("✕", "close (Esc)", () => this.close(), "ax-large-close");
    const panes = h("div", "ax-large-panes", root);
    const readout = h("div", "ax-readout", root, "Point at a picture to read its values.");
    if (!ready) {
      // The tile's own picture at once; the full resolution follows from the kernel.
      const pane = h("figure", "ax-pane ax-pane-after", panes);
      h("div", "ax-pane-title", pane, "after");
      const img = h("img", "ax-pane-preview", pane);
      const key = this.tileEls.find((t) => Number(t.dataset.index) === index)
        ?.querySelector("canvas")?.dataset.key;
      const encoded = key && this.bytes.get(key);
      if (encoded) img.src = dataUrl(...encoded);
      h("div", "ax-pane-meta", pane, "loading full resolution…");
      return;
    }
    const zoom = new LargeZoom(root, this.zoomState, () => this.showZoom());
    for (const p of view.panes || []) this.pane(panes, p, readout, zoom);
    const pictures = (view.panes || []).filter((p) => p.pixels);
    // Values that are no picture (encoded bytes, a matrix) are shown whole: nothing to point at.
    readout.hidden = !pictures.length;
    if (pictures.length) {
      // the output compared in place with its input (or, with none, the decoded original)
      const other = pictures.find((p) => p.role === "before")
        || pictures.find((p) => p.role !== "after");
      zoom.addCompare(other);
      this.zoom = zoom;
      this.zoomFigure = zoomBar(head, zoom);
      head.insertBefore(this.zoomFigure.parentElement, head.querySelector(".ax-large-spacer"));
      zoom.layout();
    }
    this.facts(root, view);
  }

  pane(parent, p, readout, zoom) {
    const fig = h("figure", `ax-pane ax-pane-${p.role}`, parent);
    const title = h("div", "ax-pane-title", fig);
    h("b", "", title, p.role);
    title.append(` · ${p.node}${p.caption ? ` (${p.caption})` : ""}`);
    const meta = `${p.shape.join("×")} ${p.dtype}${p.layout ? " " + p.layout : ""}`
      + (p.drawn_as ? ` · ${p.drawn_as}` : "");
    if (!p.pixels) {
      h("pre", "ax-pane-values", fig, p.text);
      h("div", "ax-pane-meta", fig, meta);
      return;
    }
    fig.classList.add("ax-pane-picture"); // its picture, not its words, sets its width
    const frame = h("div", "ax-ov-frame ax-ov-frame-pane");
    const canvas = h("canvas", "ax-pane-canvas", frame);
    drawOverlay(frame, p.overlay); // annotation_overlay.js
    if (p.window) drawWindow(frame, p);
    drawPixels(canvas, p);
    const box = zoom.add(fig, frame, p); // large_view.js: the box that zooms and pans
    const tip = h("span", "ax-pointer-value", box);
    tip.hidden = true;
    h("span", "ax-probe-mark", box).hidden = true;
    h("div", "ax-pane-meta", fig, meta);
    const values = p.values ? typed(p.values, p.values_dtype) : null;
    const pixels = new Uint8Array(p.pixels.buffer, p.pixels.byteOffset, p.pixels.byteLength);
    // what the probe reads of this pane at a place given as fractions of its picture
    p.read = (u, v) => {
      const x = Math.min(p.width - 1, Math.floor(u * p.width));
      const y = Math.min(p.height - 1, Math.floor(v * p.height));
      const channels = values ? p.channels : 3;
      const dtype = values ? p.values_dtype : "uint8";
      const start = (y * p.width + x) * channels;
      const source = values || pixels;
      const read = Array.from(source.subarray(start, start + channels), (n) => formatValue(n, dtype));
      const value = channels === 1 ? read[0] : `[${read.join(", ")}]`;
      return { x, y, value, dtype };
    };
    p.box = box;
    box.addEventListener("mousemove", (e) => this.probe(zoom, p, e, readout));
    box.addEventListener("mouseleave", () => this.unprobe());
  }

  // Every pane read at the same place (the same fractions of its picture): the one pointed at
  // first, its value beside the pointer too, and a mark where that place is on the others.
  probe(zoom, pointed, e, readout) {
    const box = zoom.boxes.find((b) => b.p === pointed);
    const at = box && zoom.fraction(box, e.clientX, e.clientY);
    if (!at) return this.unprobe();
    const [u, v] = at;
    const lines = [];
    for (const b of [box, ...zoom.boxes.filter((o) => o !== box)]) {
      const p = b.p;
      const r = p.read(u, v);
      lines.push(`${p.role} (${p.node}) at x ${r.x}, y ${r.y}: ${r.value} ${r.dtype}`);
      const mark = p.box.querySelector(".ax-probe-mark");
      if (b === box) {
        readout.dataset.x = String(r.x);
        readout.dataset.y = String(r.y);
        this.showTip(p.box, b.frame, e, r.value);
        mark.hidden = true;
      } else {
        p.box.querySelector(".ax-pointer-value").hidden = true;
        const fr = b.frame.getBoundingClientRect();
        const vr = p.box.getBoundingClientRect();
        mark.style.left = `${fr.left - vr.left + u * fr.width}px`;
        mark.style.top = `${fr.top - vr.top + v * fr.height}px`;
        mark.hidden = false;
      }
    }
    readout.textContent = lines.join("\n");
  }

  unprobe() {
    this.large.querySelectorAll(".ax-pointer-value, .ax-probe-mark").forEach((el) => {
      el.hidden = true;
    });
  }

  // The value beside the pointer, kept inside the part of the picture on screen: on a narrow
  // page the pictures stack and the line under them runs past the screen.
  showTip(view, frame, e, value) {
    const tip = view.querySelector(".ax-pointer-value");
    tip.textContent = value;
    tip.hidden = false;
    const vr = view.getBoundingClientRect();
    const fr = frame.getBoundingClientRect();
    const left = Math.max(vr.left, fr.left) - vr.left;
    const top = Math.max(vr.top, fr.top) - vr.top;
    const right = Math.min(vr.right, fr.right) - vr.left;
    const bottom = Math.min(vr.bottom, fr.bottom) - vr.top;
    const px = e.clientX - vr.left;
    const py = e.clientY - vr.top;
    const x = px + 14 + tip.offsetWidth <= right ? px + 14 : Math.max(left, px - 14 - tip.offsetWidth);
    const y = py + 16 + tip.offsetHeight <= bottom ? py + 16 : Math.max(top, py - 16 - tip.offsetHeight);
    tip.style.left = `${x}px`;
    tip.style.top = `${y}px`;
  }

  showZoom() {
    if (!this.zoomFigure || !this.zoom) return;
    setText(this.zoomFigure, `${Math.round(this.zoom.pixelScale() * 100)}%`);
  }

  facts(root, view) {
    const table = h("table", "ax-large-facts", root);
    const row = (name, value, cls) => {
      const tr = h("tr", cls || "", table);
      h("th", "", tr, name);
      h("td", "", tr, value);
    };
    row("file", view.file || "(in memory)", "ax-fact-file");
    row("label", `${view.label}${view.labels?.length ? ` (${view.labels.join(", ")})` : ""}`,
      "ax-fact-label");
    for (const p of view.panes || []) {
      row(`${p.role}`, `${p.node}: ${p.shape.join("×")} ${p.dtype} ${p.layout || ""}`,
        "ax-fact-shape");
    }
    // worded by the kernel, by the rule the tiles' captions are: a value reads the same in both
    for (const [name, value] of view.draw_rows || []) row(name, value, "ax-fact-draw");
    // what the values leave unsaid: operators that draw inside themselves, or randomness that
    // only comes after this node (the kernel words it: "nothing random" only where it is so)
    if (view.draws_note) row("drawn", view.draws_note, "ax-fact-draw ax-fact-draw-note");
    if (!view.can_vary) return;
    const vary = h("div", "ax-vary", root);
    const label = h("label", "", vary, "draws ");
    // Text, not a number input: that one reads text it cannot parse as "" (sent as 0), so the
    // kernel could not say what was typed; it reads the text and says why a value is not
    // applied (vary_refused).
    const count = h("input", "ax-vary-draws", label);
    count.type = "text";
    count.inputMode = "numeric";
    count.value = String(this.model.get("vary_draws"));
    // Keys typed in the box edit it: arrows move its caret, not to another sample (Esc closes).
    count.addEventListener("keydown", (e) => { if (e.key !== "Escape") e.stopPropagation(); });
    const go = h("button", "jupyter-button ax-vary-button", vary, "Vary this image");
    go.title = "the same image under many draws of every random value";
    go.addEventListener("click", () => {
      this.model.send({ event: "vary", sample: view.index, draws: count.value });
    });
    h("span", "ax-vary-refused ax-errors", vary);
    this.showVaryRefused();
  }

  showVaryRefused() {
    const said = this.large.querySelector(".ax-vary-refused");
    if (!said) return;
    setText(said, this.model.get("vary_refused") || "");
    setHidden(said, !said.textContent);
  }
}

export default {
  render({ model, el }) {
    const view = new TileGrid(model, el);
    const tiles = () => view.drawTiles();
    const state = () => view.stateChanged();
    const large = () => view.drawLarge();
    model.on("change:tiles", state);
    model.on("change:size", tiles);
    model.on("change:per_row", tiles);
    model.on("change:stale", tiles);
    model.on("change:large", large);
    const overlays = () => view.drawOverlays();
    const kinds = () => showOverlayKinds(el, model.get("overlay_kinds"));
    model.on("change:overlays", overlays);
    model.on("change:overlay_kinds", kinds);
    model.on("change:opened", large);
    const refused = () => view.showVaryRefused();
    model.on("change:vary_refused", refused);
    const custom = (msg, buffers) => {
      if (msg?.event === "pictures") view.received(msg, buffers);
    };
    model.on("msg:custom", custom);
    view.drawTiles();
    return () => {
      model.off("change:tiles", state);
      model.off("change:size", tiles);
      model.off("change:per_row", tiles);
      model.off("change:stale", tiles);
      model.off("change:large", large);
      model.off("change:overlays", overlays);
      model.off("change:overlay_kinds", kinds);
      model.off("change:opened", large);
      model.off("change:vary_refused", refused);
      model.off("msg:custom", custom);
    };
  },
};

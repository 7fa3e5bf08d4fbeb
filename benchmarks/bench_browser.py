"""Browser round trip: a slider moved in the page -> the new grid in the DOM.

JupyterLab runs a notebook with ``Explorer("reference", batch_size=16)`` (the six-operator graph of
the engine's edit-to-pixels benchmark) in headless Chromium; the benchmark selects the last node,
``brightness``, and presses the right arrow on its ``brightness`` slider,
timing in the page from the key press (capture-phase listener) to every tile showing its new
picture, decoded and in place (MutationObserver on the tile grid's ``data-drawn``,
which the page sets once every tile of the newest state shows its pixels). Reports p50 and p95
against the goal (p50 <= 25 ms, p95 <= 40 ms on a quiet machine) and the load average before,
during (sampled on every move) and after: other work on the machine shows up in every figure.
Autosave is on, as by default.

It also splits each round trip where the time goes, on one clock (the page's
``performance.timeOrigin + now()`` and the kernel's ``time.time()`` read the same system clock):
key press -> the kernel receives the slider's message (browser, server, ZMQ) -> the coalesced flush
starts (debounce) -> the engine ran -> the tiles are rendered and their new pictures sent ->
the page's handler holds the pictures (transfer to the page) -> the last picture is decoded
(createImageBitmap, off the page's main thread) -> every tile drawn. The transfer is split once
more where the kernel's IOPub thread hands the pictures' message (the one large message of the
move) to ZMQ, and where its websocket message arrives in the page: the relay between is the
Jupyter server and Chromium's network process.

Then it clicks tiles: from the click to the large view on screen (the tile's own picture, drawn
in the page) and to the sample at full resolution beside its input and original (a round trip
to the kernel), each measured in the page; target 100 ms. The load average is recorded too:
other work on the machine shows up in every figure. In the open large view, zoom and pan as
the wheel and a drag drive them, a step a frame: each frame's time (the begin time
requestAnimationFrame gives a frame to the next one's; 60 frames/s wants p95 under 16.7 ms), the
frames that missed a refresh, and the view's own work of a step.

A drag follows: keys pressed 25 ms apart on the same slider; the kernel sends previews while
they come and the full pictures once they stop (widgets/drag_preview.py). Timed: from the last
key to every tile showing its full picture, and the previews drawn on the way. Last, each way
the page can decode the grid's pictures is timed in the open page (DECODERS).

The benchmark waits for each grid on the page's own event (a promise the grid's observer
resolves); ``--wait raf`` polls on every animation frame instead, as Playwright's
``wait_for_function`` does by default, which keeps the page drawing frames a person's page would
not. After the timed moves, ``--cpu-moves`` more count the CPU time each process used per move
(the kernel, the Jupyter server, each kind of Chromium process, the driver), beside the same time
of the page left idle.

With ``--photos 1080p`` the grid shows full-HD photos (the bundled samples enlarged to
1920x1080, made in the temporary folder) instead of the samples.
Writes benchmarks/results/browser_round_trip[_batchN][_1080p].json.

    python benchmarks/bench_browser.py [--moves 30] [--batch 16] [--opens 20] [--drags 10]
        [--photos samples|1080p] [--wait event|raf] [--cpu-moves 20]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).parent))

import move_messages  # noqa: E402
import process_cpu  # noqa: E402
from _common import machine, summary, write_results  # noqa: E402

from tests.browser.harness import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    kernel_eval,
    open_notebook,
    run_all,
    start_lab,
    stop,
    write_panel_notebook,
)

# Installed before the page loads: the arrival time of the last large websocket message (the
# tiles' new pictures; every other message of a move is a few KB), whether it came as a binary
# frame (the pictures as binary buffers) or as text (base64 inside JSON), and the kernel
# websocket's subprotocol (JupyterLab's v1 has the server relay the kernel's frames unparsed).
WS_WATCH = """
(() => {
  window.__axWsLast = 0;
  window.__axWsLarge = { binary: 0, text: 0 };
  window.__axWsProtocols = [];
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('open', () => { window.__axWsProtocols.push(this.protocol); });
      this.addEventListener('message', (e) => {
        const size = e.data.byteLength || e.data.size || e.data.length || 0;
        if (size > 50000) {
          window.__axWsLast = performance.timeOrigin + performance.now();
          window.__axWsLarge[typeof e.data === 'string' ? 'text' : 'binary'] += 1;
        }
      }, true);
    }
  };
})();
"""

# The page's own marks of the last state drawn (tile_grid.js `axTimes`): when its pictures
# reached the handler, its state arrived, its last picture was decoded, and it was drawn.
WATCH = """
() => {
  const root = document.querySelector('.ax-explorer .ax-tiles-root');
  const now = () => performance.timeOrigin + performance.now();
  window.__axT0 = 0; window.__axT1 = 0; window.__axWs = 0; window.__axPage = {};
  window.__axLong = [];
  document.addEventListener('keydown', () => { window.__axT0 = now(); window.__axLong = []; }, true);
  // The page's main thread busy for 50 ms or more at a time (long tasks), while a move lasts.
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__axLong.push([performance.timeOrigin + e.startTime, e.duration]);
    }
  }).observe({ entryTypes: ['longtask'] });
  // The page sets data-drawn once every tile shows the newest state's pixels.
  new MutationObserver(() => {
    window.__axT1 = now();
    window.__axWs = window.__axWsLast;
    window.__axPage = Object.assign({}, root.axTimes);
    if (window.__axT1 > window.__axT0 && window.__axWake) {
      const wake = window.__axWake;
      window.__axWake = null;
      wake();
    }
  }).observe(root, { attributes: true, attributeFilter: ['data-drawn'] });
}
"""

# Waits for the grid drawn after the last key press without polling: a promise the observer
# above resolves. Playwright's wait_for_function polls on every animation frame by default, and
# on two cores those frames compete with the page's own decoding; a person's page makes none.
DRAWN = """
() => new Promise((resolve, reject) => {
  if (window.__axT1 > window.__axT0) { resolve(); return; }
  const timer = setTimeout(() => reject(new Error('no grid drawn in 30 s')), 30000);
  window.__axWake = () => { clearTimeout(timer); resolve(); };
})
"""

# A tile clicked -> the large view on screen (the tile's own picture, at once) -> the sample at
# full resolution drawn beside its input and original (after a round trip to the kernel).
WATCH_LARGE = """
() => {
  const large = document.querySelector('.ax-explorer .ax-large');
  const now = () => performance.timeOrigin + performance.now();
  window.__axC0 = 0; window.__axShown = 0; window.__axFull = 0;
  document.addEventListener('click', (e) => {
    if (e.target.closest('.ax-tile')) { window.__axC0 = now(); window.__axShown = 0;
      window.__axFull = 0; }
  }, true);
  new MutationObserver(() => {
    if (!window.__axC0) return;
    if (!large.hidden && !window.__axShown) window.__axShown = now();
    if (large.querySelector('.ax-pane-after canvas.ax-pane-canvas') && !window.__axFull) window.__axFull = now();
  }).observe(large, { attributes: true, childList: true, subtree: true });
}
"""

# Kernel-side timestamps (ms, system clock) of the last round trip, hooked onto the panel.
HOOKS = """
import time as _time
_ax = {}
def _ax_stamp(name):
    _ax[name] = _time.time() * 1000.0
_ax_slider = explorer.node_panel.controls['brightness'].editor.slider
def _ax_received(msg, _handle=_ax_slider._handle_msg):
    _ax.clear(); _ax_stamp('received'); _handle(msg)
_ax_slider.comm.on_msg(_ax_received)
_ax_work = explorer._coalescer._work
def _ax_flush():
    _ax_stamp('flush'); _ax_work()
explorer._coalescer._work = _ax_flush
_ax_refresh = explorer.controller.refresh
def _ax_refreshed():
    state = _ax_refresh(); _ax_stamp('engine'); return state
explorer.controller.refresh = _ax_refreshed
# the tiles rendered: their new pictures go now, the tiles' state after them
_ax_tiles = explorer.grid.tiles
def _ax_send_pictures(*args, _send=_ax_tiles._send_pictures):
    _ax_stamp('sent'); _send(*args)
_ax_tiles._send_pictures = _ax_send_pictures
# when the kernel's IOPub thread hands the pictures' message (the one large message) to ZMQ
_ax_iopub = get_ipython().kernel.iopub_thread
def _ax_really_send(msg, *args, _send=_ax_iopub._really_send, **kwargs):
    _send(msg, *args, **kwargs)
    if sum(len(part) for part in msg) > 50000:
        _ax_stamp('zmq')
_ax_iopub._really_send = _ax_really_send
print('hooked')
"""

STAGES = (
    ("key_to_kernel", "t0", "received"),
    ("debounce", "received", "flush"),
    ("engine", "flush", "engine"),
    ("render_and_send", "engine", "sent"),
    ("transfer_to_page", "sent", "pictures"),
    ("kernel_to_zmq", "sent", "zmq"),
    ("relay_to_page", "zmq", "ws"),
    ("socket_to_handler", "ws", "pictures"),
    ("state_after_pictures", "pictures", "state"),
    ("handing_to_decoders", "pictures", "handed"),
    ("first_decoded", "pictures", "firstDecoded"),
    ("decode_in_page", "pictures", "bitmaps"),
    ("draw_in_page", "decoded", "t1"),
)


# A drag as keys pressed in quick succession: the page's every drawing after the last key, with
# whether any tile still showed a preview, and when the last key went down.
WATCH_DRAG = """
() => {
  const root = document.querySelector('.ax-explorer .ax-tiles-root');
  const now = () => performance.timeOrigin + performance.now();
  window.__axDraws = []; window.__axLastKey = 0;
  document.addEventListener('keydown', () => { window.__axLastKey = now(); }, true);
  new MutationObserver(() => {
    window.__axDraws.push([now(), root.querySelector('.ax-tile-preview') !== null]);
  }).observe(root, { attributes: true, attributeFilter: ['data-drawn'] });
}
"""


def cpu_per_move(page: Any, moves: int, apart_s: float = 0.3) -> dict[str, dict[str, float]]:
    """CPU milliseconds each process used per slider move (a key, the grid drawn, `apart_s` of
    rest), by its part (process_cpu.py), beside the same time of the page left idle: where a
    move's work goes when the page, the server and the kernel share the cores."""
    handle = page.locator(".ax-arg-brightness .noUi-handle").first
    idle_before = process_cpu.snapshot()
    time.sleep(moves * apart_s)
    idle = process_cpu.used_between(idle_before, process_cpu.snapshot())
    before = process_cpu.snapshot()
    for move in range(moves):
        handle.focus()
        handle.press("ArrowRight" if move % 2 == 0 else "ArrowLeft")
        page.evaluate(DRAWN)
        time.sleep(apart_s)
    used = process_cpu.used_between(before, process_cpu.snapshot())
    per = {kind: 1000 * seconds / moves for kind, seconds in used.most_common() if seconds > 0}
    return {
        "moves": per,
        "idle": {kind: 1000 * seconds / moves for kind, seconds in idle.items() if seconds > 0},
    }


def drags(page: Any, count: int, keys: int = 8, apart_ms: int = 25) -> dict[str, Any]:
    """`count` drags of `keys` key presses `apart_ms` apart on the slider: from the last key to
    every tile showing its full picture (the previews replaced), and the previews drawn."""
    page.evaluate(WATCH_DRAG)
    handle = page.locator(".ax-arg-brightness .noUi-handle").first
    to_full: list[float] = []
    previews: list[int] = []
    for drag in range(count):
        handle.focus()
        page.evaluate("() => { window.__axDraws = []; }")
        key = "ArrowRight" if drag % 2 == 0 else "ArrowLeft"
        for _ in range(keys):
            handle.press(key)
            page.wait_for_timeout(apart_ms)
        page.wait_for_function(
            "() => window.__axDraws.some(([t, p]) => t > window.__axLastKey && !p)",
            timeout=30_000,
        )
        last, draws = page.evaluate("() => [window.__axLastKey, window.__axDraws]")
        to_full.append(next(t for t, preview in draws if t > last and not preview) - last)
        previews.append(sum(1 for _, preview in draws if preview))
        page.wait_for_timeout(400)
    return {
        "keys_per_drag": keys,
        "key_interval_ms": apart_ms,
        "last_key_to_full_pictures_ms": summary(to_full),
        "previews_drawn_per_drag": summary([float(n) for n in previews]),
    }


def large_view(page: Any, opens: int) -> tuple[list[float], list[float]]:
    """Click tiles in turn; milliseconds to the large view shown and to its full resolution."""
    page.evaluate(WATCH_LARGE)
    shown: list[float] = []
    full: list[float] = []
    count = page.locator(".ax-tile").count()
    for k in range(opens + 1):
        page.locator(f".ax-tile[data-index='{k % count}']").click()
        page.wait_for_function("() => window.__axFull > 0 && window.__axShown > 0", timeout=30_000)
        marks = page.evaluate("() => [window.__axC0, window.__axShown, window.__axFull]")
        if k > 0:  # the first open is a warm-up
            shown.append(marks[1] - marks[0])
            full.append(marks[2] - marks[0])
        page.keyboard.press("Escape")
        page.locator(".ax-large").wait_for(state="hidden")
        time.sleep(0.2)
    return shown, full


# In the open large view: 70 wheel steps (zoom in, then out) and 80 drag moves (pan), one a
# frame, about the pointer; each frame's time (one requestAnimationFrame to the next) and the
# view's own work of the step (the event, the panes placed anew, the layout that follows,
# forced so that it is counted here).
ZOOM_PAN = """
async () => {
  const large = document.querySelector('.ax-large');
  const view = large.querySelector('.ax-pane-after .ax-pane-view');
  const canvas = view.querySelector('canvas');
  const r = view.getBoundingClientRect();
  const frames = [];
  const begins = [];
  const work = [];
  let last = performance.now();
  let lastBegin = 0;
  const at = (i) => ({ clientX: r.left + r.width * (0.4 + 0.2 * Math.sin(i / 7)),
    clientY: r.top + r.height * 0.5, bubbles: true, cancelable: true, pointerId: 1, button: 0 });
  for (let i = 0; i < 151; i++) {
    const begin = await new Promise((resolve) => requestAnimationFrame(resolve));
    const now = performance.now();
    if (i > 0) { frames.push(now - last); begins.push(begin - lastBegin); }
    last = now;
    lastBegin = begin;
    const t0 = performance.now();
    if (i < 70) {
      view.dispatchEvent(new WheelEvent('wheel', { ...at(i), deltaY: i < 35 ? -40 : 30 }));
    } else {
      if (i === 70) view.dispatchEvent(new PointerEvent('pointerdown', at(i)));
      view.dispatchEvent(new PointerEvent('pointermove', at(i)));
    }
    large.axZoom.apply();
    canvas.getBoundingClientRect();
    work.push(performance.now() - t0);
  }
  view.dispatchEvent(new PointerEvent('pointerup', at(0)));
  return { frames, begins, work };
}
"""


MISSED_FRAME_MS = 1.5 * 1000 / 60


def zoom_and_pan(page: Any) -> dict[str, Any]:
    """Open a tile's large view at full resolution, zoom and pan it a step a frame, close it."""
    page.locator(".ax-tile[data-index='1']").click()
    page.locator(".ax-large .ax-pane-after canvas.ax-pane-canvas").wait_for(timeout=30_000)
    load = os.getloadavg()
    measured = page.evaluate(ZOOM_PAN)
    page.keyboard.press("Escape")
    page.locator(".ax-large").wait_for(state="hidden")
    # A frame that misses the screen's refresh lasts two of them: 16.7 ms with jitter is on time.
    missed = sum(1 for ms in measured["begins"] if ms > MISSED_FRAME_MS)
    return {
        # one frame's begin time (requestAnimationFrame's own timestamp) to the next: the
        # screen's frame time, as a frame-rate meter reads it
        "frame_ms": summary(measured["begins"]),
        # when each frame's callback ran to the next: the same plus the main thread's jitter
        "callback_interval_ms": summary(measured["frames"]),
        "step_work_ms": summary(measured["work"]),
        "frames": len(measured["frames"]),
        "frames_missed": missed,
        "frame_target_p95_ms": 16.7,
        "load_average": load,
    }


# The grid's pictures, and the same pixels as WebP, as the kernel holds them (base64 text).
GRID_PICTURES = """
import base64, io, json
from PIL import Image
def _ax_webp(jpeg):
    out = io.BytesIO()
    Image.open(io.BytesIO(jpeg)).save(out, 'WEBP', quality=80)
    return out.getvalue()
_ax_jpegs = [p for p in explorer.grid.pictures if p]
print(json.dumps({'jpeg': [base64.b64encode(p).decode() for p in _ax_jpegs],
                  'webp': [base64.b64encode(_ax_webp(p)).decode() for p in _ax_jpegs]}))
"""

# Each way the page can decode a grid's pictures off its main thread, timed in the page itself
# (JupyterLab open, as in use): from the bytes to every picture decoded, and the part of that
# spent on the main thread before the decoding is handed off.
DECODERS = """
async ({ jpeg, webp, rounds }) => {
  const bytes = (list) => list.map((b) => Uint8Array.from(atob(b), (c) => c.charCodeAt(0)));
  const pictures = { jpeg: bytes(jpeg), webp: bytes(webp) };
  const now = () => performance.now();
  const dataUrl = (b, type) => {
    let s = '';
    for (let k = 0; k < b.length; k += 0x8000) s += String.fromCharCode.apply(null, b.subarray(k, k + 0x8000));
    return `data:${type};base64,${btoa(s)}`;
  };
  const image = (b, type) => { const i = new Image(); i.src = dataUrl(b, type); return i.decode(); };
  const ways = {
    jpeg_image_decode: ['jpeg', (b) => image(b, 'image/jpeg')],
    jpeg_create_image_bitmap: ['jpeg', (b) =>
      createImageBitmap(new Blob([b], { type: 'image/jpeg' })).then((x) => x.close())],
    jpeg_image_decoder: ['jpeg', async (b) => {
      if (typeof ImageDecoder === 'undefined') throw new Error('no ImageDecoder');
      const d = new ImageDecoder({ data: b, type: 'image/jpeg' });
      const r = await d.decode(); r.image.close(); d.close(); }],
    webp_image_decode: ['webp', (b) => image(b, 'image/webp')],
    webp_image_decoder: ['webp', async (b) => {
      if (typeof ImageDecoder === 'undefined') throw new Error('no ImageDecoder');
      const d = new ImageDecoder({ data: b, type: 'image/webp' });
      const r = await d.decode(); r.image.close(); d.close(); }],
  };
  const out = {};
  for (const name of Object.keys(ways)) out[name] = { done: [], main_thread: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [name, [kind, decode]] of Object.entries(ways)) {
      const t = now();
      const waits = pictures[kind].map(decode);
      const handed = now();
      try { await Promise.all(waits); } catch (e) { out[name].error = String(e); continue; }
      out[name].done.push(now() - t);
      out[name].main_thread.push(handed - t);
      await new Promise((r) => setTimeout(r, 30));
    }
  }
  out.bytes = { jpeg: pictures.jpeg.reduce((n, b) => n + b.length, 0),
                webp: pictures.webp.reduce((n, b) => n + b.length, 0) };
  return out;
}
"""


def page_decoders(page: Any, rounds: int = 20) -> dict[str, Any]:
    """The grid's pictures decoded in the page by each way there is (see DECODERS)."""
    pictures = json.loads(kernel_eval(page, GRID_PICTURES).strip().splitlines()[-1])
    raw = page.evaluate(DECODERS, {**pictures, "rounds": rounds})
    out: dict[str, Any] = {"bytes": raw.pop("bytes"), "pictures": len(pictures["jpeg"])}
    for name, times in raw.items():
        if times.get("error") or not times["done"]:
            out[name] = {"error": times.get("error", "no result")}
            continue
        out[name] = {
            "done_ms": summary(times["done"][2:]),  # the first two rounds warm up
            "main_thread_ms": summary(times["main_thread"][2:]),
        }
    return out


def load_now() -> float:
    """The 1-minute load average, as /proc/loadavg gives it."""
    return float(Path("/proc/loadavg").read_text().split()[0])


PHOTOS_1080P = (1920, 1080)


def write_photos(folder: Path, count: int) -> Path:
    """`count` 1920x1080 JPEGs (the bundled samples enlarged, in their class folders): the
    graph then decodes and reduces full-HD photos, as a camera dataset has it."""
    from PIL import Image

    from augexplorer.data import samples_dir

    photos = sorted(samples_dir().rglob("*.jpg"))
    for index in range(count):
        source = photos[index % len(photos)]
        target = folder / source.parent.name / f"{source.stem}_{index}.jpg"
        target.parent.mkdir(parents=True, exist_ok=True)
        with Image.open(source) as photo:
            photo.convert("RGB").resize(PHOTOS_1080P, Image.Resampling.BICUBIC).save(
                target, quality=90
            )
    return folder


def write_notebook(root: Path, batch: int, data: Path | None = None) -> str:
    where = "" if data is None else f", data={str(data)!r}"
    code = (
        "from augexplorer import Explorer\n"
        # autosave on, as by default (its own file in the temporary folder)
        f"explorer = Explorer('reference', batch_size={batch}{where}, autosave='bench')\nexplorer"
    )
    return write_panel_notebook(root, "bench", "bench", code)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--opens", type=int, default=20)
    parser.add_argument("--drags", type=int, default=10)
    parser.add_argument(
        "--photos",
        choices=["samples", "1080p"],
        default="samples",
        help="the bundled samples, or full-HD photos made from them (a batch's worth)",
    )
    parser.add_argument(
        "--cpu-moves",
        type=int,
        default=20,
        help="moves after the timed ones with each process's CPU time counted (0: none)",
    )
    parser.add_argument(
        "--messages",
        type=int,
        default=2,
        help="moves after the timed ones with every websocket message the page gets listed",
    )
    parser.add_argument(
        "--wait",
        choices=["event", "raf"],
        default="event",
        help="wait for the grid on the page's own event (as a person's page runs), or by polling"
        " every animation frame (Playwright's default, which keeps the page drawing frames)",
    )
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    load_before = os.getloadavg()
    load_during: list[float] = []

    with tempfile.TemporaryDirectory() as tmp:
        base, root = Path(tmp) / "lab", Path(tmp) / "root"
        base.mkdir()
        root.mkdir()
        photos = None
        if args.photos == "1080p":
            photos = write_photos(Path(tmp) / "photos", max(args.batch, 16))
        name = write_notebook(root, args.batch, photos)
        lab = start_lab(base, root)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1700, "height": 1100})
                page.add_init_script(WS_WATCH)
                page.add_init_script(move_messages.RECORD)
                open_notebook(page, lab, name)
                run_all(page)
                page.locator(".ax-explorer .ax-tile canvas[data-key]").first.wait_for(
                    timeout=120_000
                )
                page.locator(".ax-graph [data-node='brightness']").click()
                page.locator(".ax-arg-brightness .noUi-handle").wait_for()
                time.sleep(1.0)
                assert "hooked" in kernel_eval(page, HOOKS)
                page.evaluate(WATCH)
                handle = page.locator(".ax-arg-brightness .noUi-handle").first
                times: list[float] = []
                decoded: list[float] = []
                long_tasks: list[float] = []
                sent_before = int(kernel_eval(page, "print(explorer.grid.tiles.pictures_sent)"))
                stages: dict[str, list[float]] = {name: [] for name, _, _ in STAGES}
                for move in range(args.warmup + args.moves):
                    handle.focus()
                    # twenty steps up, twenty down: a move at the slider's end would change nothing
                    handle.press("ArrowRight" if (move // 20) % 2 == 0 else "ArrowLeft")
                    if args.wait == "event":
                        page.evaluate(DRAWN)
                    else:
                        page.wait_for_function(
                            "() => window.__axT1 > window.__axT0", timeout=30_000
                        )
                    marks = page.evaluate(
                        "() => ({t0: window.__axT0, t1: window.__axT1, ws: window.__axWs,"
                        " ...window.__axPage, long: window.__axLong})"
                    )
                    long_tasks.append(
                        sum(d for start, d in marks.pop("long") if start < marks["t1"])
                    )
                    load_during.append(load_now())
                    # a mark left from an earlier move
                    for late in (
                        "pictures",
                        "decoded",
                        "bitmaps",
                        "state",
                        "handed",
                        "firstDecoded",
                    ):
                        if marks.get(late, 0) < marks["t0"]:
                            marks.pop(late, None)
                    if not marks["ws"] or marks["ws"] < marks["t0"]:
                        del marks["ws"]  # no large message seen in this move
                    time.sleep(0.3)  # the side views (timing chart) follow the grid
                    marks.update(
                        json.loads(kernel_eval(page, "import json; print(json.dumps(_ax))"))
                    )
                    if move >= args.warmup:
                        times.append(marks["t1"] - marks["t0"])
                        if "decoded" in marks:
                            decoded.append(marks["decoded"] - marks["t0"])
                        for name, start, end in STAGES:
                            if start in marks and end in marks:
                                stages[name].append(marks[end] - marks[start])
                engine = kernel_eval(
                    page,
                    "r = explorer.result; print(sum(r.steps[s].time_ms for s in r.ran()))",
                )
                grid_bytes = kernel_eval(
                    page, "print(sum(len(p) for p in explorer.grid.pictures if p))"
                )
                sent = int(kernel_eval(page, "print(explorer.grid.tiles.pictures_sent)"))
                websocket = page.evaluate(
                    "() => ({protocols: window.__axWsProtocols, large_messages: window.__axWsLarge})"
                )
                cpu = cpu_per_move(page, args.cpu_moves) if args.cpu_moves else None

                def press() -> None:
                    handle.focus()
                    handle.press("ArrowRight")

                messages = move_messages.record(page, press, kernel_eval, args.messages)
                dragged = drags(page, args.drags)
                decoders = page_decoders(page)
                opened, full = large_view(page, args.opens)
                zoomed = zoom_and_pan(page)
                browser.close()
        finally:
            stop(lab.process)
    stats = summary(times)
    breakdown = {name: summary(values)["p50"] for name, values in stages.items() if values}
    data = {
        "what": "slider moved in the page -> new grid in the DOM (JupyterLab, headless Chromium)",
        "graph": "reference (6 operators), last node's argument",
        "batch_size": args.batch,
        "photos": args.photos,
        "wait": args.wait,
        "round_trip_ms": stats,
        "to_last_picture_decoded_ms": summary(decoded) if decoded else None,
        "last_engine_run_ms": float(engine.strip() or 0.0),
        "stages_p50_ms": breakdown,
        "page_long_tasks_ms": summary(long_tasks[args.warmup :]),
        "grid_jpeg_bytes": int(grid_bytes.strip() or 0),
        "pictures_sent_per_move": (sent - sent_before) / (args.warmup + args.moves),
        "websocket": websocket,
        "cpu_ms_per_move": cpu,
        "messages_per_move": messages,
        "drags": dragged,
        "page_decoders": decoders,
        "large_view_shown_ms": summary(opened),
        "large_view_full_resolution_ms": summary(full),
        "large_view_target_ms": 100.0,
        "large_view_zoom_pan": zoomed,
        "load_average_before": load_before,
        "load_average_during": {"min": min(load_during), "max": max(load_during)},
        "load_average_after": os.getloadavg(),
        "target_p50_ms": 25.0,
        "target_p95_ms": 40.0,
        "samples_ms": times,
        "machine": machine(),
    }
    name = "browser_round_trip" + ("" if args.batch == 16 else f"_batch{args.batch}")
    name += "" if args.photos == "samples" else f"_{args.photos}"
    path = write_results(name, data)
    print(
        f"round trip at batch {args.batch} ({args.photos}): p50 {stats['p50']:.0f} ms, p95 {stats['p95']:.0f} ms "
        f"(engine part of the last run {data['last_engine_run_ms']:.0f} ms); load "
        f"{load_before[0]:.2f}, {min(load_during):.2f}-{max(load_during):.2f} during, "
        f"{data['load_average_after'][0]:.2f} after; wrote {path}"
    )
    print(
        f"  {data['pictures_sent_per_move']:.1f} pictures sent a move, "
        f"{data['grid_jpeg_bytes'] / 1000:.0f} KB a grid"
    )
    large = websocket["large_messages"]
    print(
        f"  websocket subprotocols {websocket['protocols']}; messages over 50 KB: "
        f"{large['binary']} binary, {large['text']} text"
    )
    for name, ms in breakdown.items():
        print(f"  {name:20s} p50 {ms:7.1f} ms")
    if cpu is not None:
        total = sum(cpu["moves"].values())
        print(
            f"  CPU per move, all processes {total:.0f} ms (idle page {sum(cpu['idle'].values()):.0f}):"
        )
        for kind, ms in cpu["moves"].items():
            print(f"    {kind:20s} {ms:6.1f} ms")
    for number, listed in enumerate(messages):
        print(f"  the page's websocket messages of a move ({number + 1} of {len(messages)}):")
        print("\n".join(move_messages.lines(listed)))
    busy = data["page_long_tasks_ms"]
    print(
        f"  page main thread in long tasks during a move: p50 {busy['p50']:.0f} ms, max "
        f"{max(long_tasks[args.warmup :]):.0f}"
    )
    print(
        f"decoding the grid's {decoders['pictures']} pictures in the page "
        f"(JPEG {decoders['bytes']['jpeg'] / 1000:.0f} KB, WebP {decoders['bytes']['webp'] / 1000:.0f} KB):"
    )
    for name, got in decoders.items():
        if isinstance(got, dict) and "done_ms" in got:
            print(
                f"  {name:26s} done p50 {got['done_ms']['p50']:5.1f} ms "
                f"(p95 {got['done_ms']['p95']:5.1f}), main thread p50 "
                f"{got['main_thread_ms']['p50']:4.1f} ms"
            )
        elif isinstance(got, dict) and "error" in got:
            print(f"  {name:26s} {got['error']}")
    full_after = dragged["last_key_to_full_pictures_ms"]
    print(
        f"a drag ({dragged['keys_per_drag']} keys {dragged['key_interval_ms']} ms apart): "
        f"{dragged['previews_drawn_per_drag']['p50']:.0f} previews drawn (p50), the full pictures "
        f"p50 {full_after['p50']:.0f} ms (p95 {full_after['p95']:.0f}) after the last key"
    )
    shown, full_res = summary(opened), summary(full)
    print(
        f"large view on a click: shown p50 {shown['p50']:.0f} ms (p95 {shown['p95']:.0f}), "
        f"full resolution p50 {full_res['p50']:.0f} ms (p95 {full_res['p95']:.0f})"
    )
    frame, work = zoomed["frame_ms"], zoomed["step_work_ms"]
    callbacks = zoomed["callback_interval_ms"]
    print(
        f"large view zoom and pan ({zoomed['frames']} frames, load {zoomed['load_average'][0]:.2f}):"
        f" frame p50 {frame['p50']:.1f} ms, p95 {frame['p95']:.1f} (60 frames/s: 16.7; "
        f"callback to callback p50 {callbacks['p50']:.1f}, p95 {callbacks['p95']:.1f}), "
        f"{zoomed['frames_missed']} frames over {MISSED_FRAME_MS:.0f} ms (a refresh missed), the"
        f" view's own work of a step p50 {work['p50']:.2f} ms, p95 {work['p95']:.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

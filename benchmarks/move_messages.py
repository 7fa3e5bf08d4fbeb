"""Every websocket message the page receives during a slider move, in the order it arrives: when
(after the key press), how large, what it is (a status, a widget's update and of which keys, a
custom message) and which widget it is for (class and CSS classes, asked of the kernel).

What a move sends besides its pictures is what the page must handle while they are on their
way: on two cores every small update ahead of them (its layout, its frame) can hold them up.

The page decodes JupyterLab's v1 kernel websocket frames (offsets, then channel, header, parent
header, metadata, content): only the header and the content are read."""

from __future__ import annotations

import json
import time
from typing import Any

# Installed before the page loads, beside bench_browser's own watch of the websocket.
RECORD = """
(() => {
  window.__axMsgs = [];
  const text = new TextDecoder();
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const at = performance.timeOrigin + performance.now();
        const seen = { at, size: e.data.byteLength || e.data.length || 0 };
        if (typeof e.data !== 'string') {
          try {
            const view = new DataView(e.data);
            const count = Number(view.getBigUint64(0, true));
            const offsets = [];
            for (let i = 0; i < count; i++) offsets.push(Number(view.getBigUint64(8 + 8 * i, true)));
            const part = (k) => text.decode(new Uint8Array(e.data, offsets[k], offsets[k + 1] - offsets[k]));
            seen.channel = part(0);
            seen.type = JSON.parse(part(1)).msg_type;
            const content = JSON.parse(part(4));
            if (content.execution_state) seen.state = content.execution_state;
            if (content.comm_id) seen.comm = content.comm_id;
            const data = content.data || {};
            if (data.method) seen.method = data.method;
            if (data.state) seen.keys = Object.keys(data.state).sort().join(',');
            if (data.content && data.content.event) seen.event = data.content.event;
          } catch (error) { seen.error = String(error); }
        }
        window.__axMsgs.push(seen);
      }, true);
    }
  };
})();
"""

# The widgets behind the comms seen: class and CSS classes.
_NAMES = """
import json as _json
import warnings as _warnings
from ipywidgets import Widget as _Widget
with _warnings.catch_warnings():
    _warnings.simplefilter('ignore')  # Widget.widgets is deprecated, and the only public way
    _all = dict(_Widget.widgets)
_found = {}
for _comm in %r:
    _w = _all.get(_comm)
    if _w is not None:
        _found[_comm] = type(_w).__name__ + ''.join('.' + c for c in getattr(_w, '_dom_classes', ()))
print(_json.dumps(_found))
"""


def record(page: Any, press: Any, kernel_eval: Any, moves: int) -> list[list[dict[str, Any]]]:
    """`moves` moves (`press()` presses the key), each with the messages of its first 400 ms."""
    seen: list[list[dict[str, Any]]] = []
    for _ in range(moves):
        page.evaluate("() => { window.__axMsgs = []; window.__axKey = 0; }")
        page.evaluate(
            "() => document.addEventListener('keydown', () => {"
            " window.__axKey = window.__axKey || performance.timeOrigin + performance.now(); },"
            " { capture: true, once: true })"
        )
        press()
        time.sleep(0.4)
        key, messages = page.evaluate("() => [window.__axKey, window.__axMsgs]")
        for message in messages:
            message["after_key_ms"] = round(message.pop("at") - key, 1)
        seen.append(messages)
    comms = sorted({m["comm"] for move in seen for m in move if "comm" in m})
    names = json.loads(kernel_eval(page, _NAMES % comms).strip().splitlines()[-1])
    for move in seen:
        for message in move:
            if "comm" in message:
                message["widget"] = names.get(message.pop("comm"), "?")
    return seen


def lines(move: list[dict[str, Any]]) -> list[str]:
    """One move's messages, a line each."""
    out = []
    for m in move:
        what = m.get("type", "?")
        if "state" in m:
            what += f" {m['state']}"
        if "method" in m:
            what += f" {m['method']}" + (f" {m['keys']}" if m.get("keys") else "")
            what += f" {m['event']}" if "event" in m else ""
        out.append(
            f"    {m['after_key_ms']:7.1f} ms {m['size'] / 1000:7.1f} KB  {what}  {m.get('widget', '')}"
        )
    return out

// The operator picker: a search box, operators grouped by what they do, one click to add.
// Greyed entries say why they cannot go at the selected point; nothing scrolls sideways.
// The groups and their order come from the kernel (op_picker.GROUPS); the last one is hidden
// unless asked for.
const hiddenGroup = (groups) => groups[groups.length - 1];

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

// Every word of the search somewhere in the name, the summary or the torchvision and
// albumentations names ported to it ("RandomResizedCrop"): "random crop" finds
// random_resized_crop (op_picker.py's `matches` reads the same way).
function found(item, words) {
  const known = (item.known || []).join(" ");
  const text = `${item.name} ${item.name.replace(/[._]/g, " ")} ${item.summary} ${known}`.toLowerCase();
  return words.every((w) => text.includes(w));
}

// Within a group: what fits first, then operators whose own name holds every word (a DALI user
// typing "random crop" means random_resized_crop), then those found by summary or ported name.
function byName(words) {
  return (item) => words.every((w) => `${item.name} ${item.name.replace(/[._]/g, " ")}`.toLowerCase().includes(w));
}

function order(words) {
  const named = byName(words);
  return (a, b) => {
    if (a.fits !== b.fits) return a.fits ? -1 : 1;
    const na = named(a), nb = named(b);
    if (na !== nb) return na ? -1 : 1;
    return a.name.localeCompare(b.name);
  };
}

function visible(model, needle) {
  const showHidden = model.get("show_hidden");
  const hidden = hiddenGroup(model.get("groups") || []);
  const words = needle.split(/\s+/).filter(Boolean);
  return (model.get("items") || []).filter((i) =>
    (showHidden || needle || i.group !== hidden) && found(i, words));
}

function drawList(model, list) {
  const needle = (model.get("search") || "").toLowerCase().trim();
  const items = visible(model, needle);
  const sorted = order(needle.split(/\s+/).filter(Boolean));
  list.replaceChildren();
  for (const group of model.get("groups") || []) {
    const members = items.filter((i) => i.group === group).sort(sorted);
    if (!members.length) continue;
    const section = el("div", "ax-op-group");
    const fitting = members.filter((i) => i.fits).length;
    section.appendChild(el("div", "ax-op-group-title", `${group} · ${fitting}/${members.length}`));
    for (const item of members) {
      const row = el("button", item.fits ? "ax-op-item" : "ax-op-item ax-op-off");
      row.type = "button";
      row.dataset.op = item.name;
      row.appendChild(el("span", "ax-op-name", item.name));
      const detail = item.fits ? item.note || item.summary : item.reason;
      row.appendChild(el("span", item.fits ? "ax-op-summary" : "ax-op-reason", detail));
      // Said on the row itself, not only in a tooltip: the cost is unlike every other operator.
      if (item.cost) row.appendChild(el("span", "ax-op-cost", item.cost));
      row.title = item.fits ? `${item.name}: ${item.summary}` : `${item.name} cannot go here: ${item.reason}`;
      row.setAttribute("aria-disabled", item.fits ? "false" : "true");
      row.addEventListener("click", () => model.send({ add: item.name }));
      section.appendChild(row);
    }
    list.appendChild(section);
  }
  if (!list.children.length) list.appendChild(el("div", "ax-op-none", "No operator matches."));
}

export default {
  render({ model, el: root }) {
    root.classList.add("ax-op-picker-root");
    const where = el("div", "ax-op-where");
    const search = el("input", "ax-op-search-input");
    search.type = "search";
    search.placeholder = "search operators (blur, rotate, crop…)";
    search.value = model.get("search") || "";
    const box = el("div", "ax-op-search");
    box.appendChild(search);
    const hidden = el("label", "ax-op-show-hidden");
    const check = el("input");
    check.type = "checkbox";
    check.checked = model.get("show_hidden");
    hidden.append(check, " show audio, video and readers");
    const message = el("div", "ax-op-message");
    const list = el("div", "ax-op-list");
    root.append(where, box, hidden, message, list);
    const redraw = () => {
      where.textContent = model.get("where");
      message.textContent = model.get("message");
      check.checked = model.get("show_hidden");
      drawList(model, list);
    };
    // Enter adds the first operator listed that fits, as a click on it would.
    search.addEventListener("keydown", (e) => {
      // not while an input method composes, nor on an empty search (a click picks from all)
      if (e.key !== "Enter" || e.isComposing || !search.value.trim()) return;
      e.preventDefault();
      const first = list.querySelector(".ax-op-item:not(.ax-op-off)");
      if (first) model.send({ add: first.dataset.op });
    });
    search.addEventListener("input", () => {
      model.set("search", search.value);
      model.save_changes();
      drawList(model, list);
    });
    check.addEventListener("change", () => {
      model.set("show_hidden", check.checked);
      model.save_changes();
    });
    const events = ["change:items", "change:where", "change:show_hidden", "change:message",
      "change:groups"];
    for (const e of events) model.on(e, redraw);
    redraw();
    return () => { for (const e of events) model.off(e, redraw); };
  },
};

// A button that copies its `text` trait to the clipboard, in the browser (no kernel round trip).
async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (error) {
    // Clipboard API unavailable (insecure context): fall back to a hidden text area.
    const area = document.createElement("textarea");
    area.value = text;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

export default {
  render({ model, el }) {
    const button = document.createElement("button");
    button.className = "ax-copy-btn jupyter-button";
    button.textContent = model.get("label");
    button.addEventListener("click", async () => {
      const ok = await copy(model.get("text"));
      button.textContent = ok ? "Copied" : "Copy failed";
      model.set("copied", model.get("copied") + (ok ? 1 : 0));
      model.save_changes();
      setTimeout(() => (button.textContent = model.get("label")), 1500);
    });
    // shown once there is code to copy (an export wrote it)
    const sync = () => {
      button.disabled = !model.get("text");
      el.style.display = model.get("text") ? "" : "none";
    };
    model.on("change:text", sync);
    sync();
    el.appendChild(button);
  },
};

// The timing chart's HTML, drawn anew for every run: a transform's row folded open stays open
// across the redraws an edit brings (a new value would otherwise close every <details>).
export default {
  render({ model, el }) {
    const draw = () => {
      const open = new Set(
        [...el.querySelectorAll("details.ax-bar-fold[open]")].map((fold) => fold.dataset.port),
      );
      el.innerHTML = model.get("value");
      for (const fold of el.querySelectorAll("details.ax-bar-fold")) {
        if (open.has(fold.dataset.port)) fold.open = true;
      }
    };
    draw();
    model.on("change:value", draw);
    return () => model.off("change:value", draw);
  },
};

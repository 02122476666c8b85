// The explorer's keys: ← and → step, Home and End go to the first and last step, Space plays or
// pauses, P turns predict mode on or off. They reach the view from the whole page (or, with
// data-keys="inside", from inside the view only), but never from a field, a dialog or the text window.

/** Act on a keydown for the explorer `view`; keys it does not take are left alone. */
export function explorerKey(view, event) {
  if (view.hidden || !view.handle || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
  // The focused node itself, also inside a shadow root (marimo draws widgets in one).
  const target = event.composedPath ? event.composedPath()[0] : event.target;
  // Focus may sit on the page, on the shell around the view (a click focuses <main>), or inside the view;
  // with data-keys="inside" (a notebook shows several views) only inside it.
  const around = view.dataset.keys !== "inside" && (target === document.body || target.contains(view));
  if (!(view.contains(target) || around)) return;
  if (target.closest && target.closest("input, select, textarea, [contenteditable], dialog, .text-window")) return;
  const actions = {
    ArrowRight: () => view.go(view.k + 1), ArrowLeft: () => view.go(view.k - 1),
    Home: () => view.go(0), End: () => view.go(view.steps),
    p: () => view.setPredict(!view.predict), P: () => view.setPredict(!view.predict),
  };
  if (event.key === " " && !(target.closest && target.closest("button, a"))) actions[" "] = () => view.toggle();
  const action = actions[event.key];
  if (!action) return;
  event.preventDefault();
  action();
}

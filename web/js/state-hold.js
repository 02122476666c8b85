// While a link's, lesson's or embed's state is on its way into a view (samples, a z= text and the view
// module load first), the view's text fields are read-only: what a reader types in that moment would
// otherwise be overwritten, and lost, when the state arrives. The view announces when its fields show
// the state (stateShown); the hold also ends when the state has been applied, or failed to be.

const TEXT_FIELDS = "textarea, input:not([type=radio]):not([type=checkbox]):not([type=range]):not([type=file])"
  + ":not([type=button]):not([type=submit]):not([type=reset])";

/** Hold node's text fields until it calls stateShown(node); returns the release (safe to call twice). */
export function holdFieldsForState(node) {
  const held = [...node.querySelectorAll(TEXT_FIELDS)].filter((field) => !field.readOnly);
  for (const field of held) field.readOnly = true;
  node.setAttribute("aria-busy", "true");
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    node.removeEventListener("bpe-state-shown", release);
    // A box showing only the start of a long text stays read-only for its own reason (exact-text.js).
    for (const field of held) field.readOnly = field.hasAttribute("data-cut");
    node.removeAttribute("aria-busy");
  };
  node.addEventListener("bpe-state-shown", release);
  return release;
}

/** A view's fields now show the state it was given: a hold on them may end. */
export function stateShown(view) {
  view.dispatchEvent(new CustomEvent("bpe-state-shown"));
}

// The panels a widget shows (`parts=`, and the `parts` attribute of <bpe-lab>), so that it fits
// a lesson page. Each view marks its panels with data-part="NAME"; css/embed.css hides those a
// widget's data-parts leaves out. `parts=all` shows every panel, as the app does.
export const PARTS = {
  explorer: ["controls", "pairs", "merge", "rows", "window", "trace"],
  compare: ["panes", "counts", "ids", "policy", "languages", "charts"],
  train: ["text", "settings", "results", "merges", "vocab", "report", "export", "import"],
  encode: ["controls", "text", "counts", "tokens", "ids"],
};

// Chosen for a lesson page: at 800 px wide the explorer on seed 003 at step 5 is at most 760 px
// tall (747 measured), and compare with three panes on a one-line text at most 520 px (507)
// (tests/e2e/test_widget_parts.py; build_scripts/measure_widgets.py prints every view's heights).
// The explorer's text window (`window`) would add about 190 px: a lesson asks for it with parts=.
export const DEFAULT_PARTS = {
  explorer: ["controls", "pairs", "merge"],
  compare: ["panes", "counts"],
  train: ["text", "settings", "results", "merges"],
  encode: ["controls", "text", "counts", "tokens"],
};

/**
 * The parts a widget shows when parts= is not given: the lesson page's defaults, plus the panel of
 * anything its state asks to show apart from the view's defaults (an explorer's trace text, compare's
 * policy or its pasted language table), so that no parameter is taken and then not shown.
 */
export function defaultParts(view, state = {}, defaults = {}) {
  const parts = new Set(DEFAULT_PARTS[view]);
  const asked = (key) => state?.[key] && state[key] !== defaults?.[key];
  if (view === "explorer" && asked("trace")) parts.add("trace");
  if (view === "compare" && asked("policy")) parts.add("policy");
  if (view === "compare" && asked("lang")) parts.add("languages");
  return PARTS[view].filter((p) => parts.has(p));
}

/** {parts} for a parts= value of a view's widget, or {error} saying what is wrong and what it may hold. */
export function readParts(view, value) {
  const known = PARTS[view];
  const text = String(value).trim();
  if (text === "all") return { parts: [...known] };
  const parts = text.split(",").map((p) => p.trim()).filter(Boolean);
  const bad = parts.filter((p) => !known.includes(p));
  if (bad.length || !parts.length) {
    return { error: `parts=${JSON.stringify(text.slice(0, 60))}: ${bad.length ? `${bad.map((b) => JSON.stringify(b.slice(0, 20))).join(", ")} ${bad.length === 1 ? "is" : "are"} not a part of the ${view} widget` : "it names no part"}; `
      + `use a comma list of ${known.join(", ")}, or all.` };
  }
  return { parts: known.filter((p) => parts.includes(p)) };
}

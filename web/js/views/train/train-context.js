// What the Train view's modules share: its elements (ui), its state, and the store.
// The view is mounted once per page; bind() fills these live bindings when it is.
// Data flows one way: train-view.js -> train-controller.js (owns the runs) -> the leaf modules
// (train-text, train-form, train-results, train-export), which import only this file and shared
// helpers; what a leaf needs from the controller it is given at init, as a callback.
export { store } from "../../store.js";

export let ui = null;
export let state = null;
export let host = null;  // the <bpe-train-view> element

const IDS = {
  intro: "intro", workedExample: "worked-example",
  sample: "sample", sampleInfo: "sample-info", openFiles: "open-files", fileInput: "file-input",
  clearText: "clear-text", undoBar: "undo-bar", undoText: "undo-text", undo: "undo",
  fileList: "file-list", textDrop: "text-drop", text: "text", textPanel: "text-panel",
  textNote: "text-note", heldoutNote: "heldout-note",
  countsPanel: "counts-panel", counts: "counts", countsStatus: "counts-status", countsError: "counts-error",
  counter: "counter", charCount: "char-count", charLimit: "char-limit", docCount: "doc-count",
  overBadge: "over-badge", textError: "text-error", heldout: "heldout",
  form: "settings", size: "size", sizeLabel: "size-label", sizeHint: "size-hint", sizeError: "size-error",
  pretokenizer: "pretokenizer", pretokenizerHint: "pretokenizer-hint", patternRow: "pattern-row",
  patternCheck: "pattern-check", tieHint: "tie-hint",
  pattern: "pattern", tieBreak: "tie_break", minCount: "min_count", separator: "separator",
  separatorRow: "separator-row", separatorText: "separator_text", specialTokens: "special_tokens",
  settingsError: "settings-error", train: "train", share: "train-share",
  limitDialog: "limit-dialog", limitText: "limit-text", limitTruncate: "limit-truncate", limitBack: "limit-back",
  progressPanel: "progress-panel", trainProgress: "train-progress", progressText: "progress-text", cancel: "cancel",
  runMessage: "run-message",
  results: "results", resultsSummary: "results-summary", resultsStale: "results-stale", resultsNoTab: "results-no-tab",
  mergePrev: "merge-prev", mergeNext: "merge-next", mergeRange: "merge-range", mergeJump: "merge-jump",
  mergeBody: "merge-body", vocabStats: "vocab-stats", longest: "longest", hist: "hist",
  reportBody: "report-body", heldoutHead: "heldout-head", curve: "curve", tabCompression: "tab-compression",
  exportPanel: "export-panel", exportZip: "export-zip", exportFiles: "export-files", exportLayout: "export-layout",
  exportHint: "export-hint", exportMake: "export-make", selfCheck: "self-check",
  importDrop: "import-drop", importOpen: "import-open", importInput: "import-input", importMessage: "import-message",
  importAsk: "import-pretokenizer", importAskText: "import-ask-text", importPre: "import-pre", importAgain: "import-again",
  importPatternRow: "import-pattern-row", importPattern: "import-pattern", importAskCancel: "import-ask-cancel",
};

/** The view's params changed: the app (or the embed) reads them again and writes the address. */
export function paramsChanged() {
  host.dispatchEvent(new CustomEvent("bpe-params", { bubbles: true }));
}

/** Look every element up once, inside the view; a missing one is a bug in train-view.html. */
export function bind(element, initialState) {
  host = element;
  const found = {};
  for (const [key, id] of Object.entries(IDS)) {
    const node = element.querySelector(`#${id}`);
    if (!node) throw new Error(`#${id} is missing from train-view.html`);
    found[key] = node;
  }
  found.tabs = ["tab-merges", "tab-vocab", "tab-compression"].map((id) => element.querySelector(`#${id}`));
  ui = found;
  state = initialState;
}

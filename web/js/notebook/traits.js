// A widget's traits (bpelab/widgets/_widgets.py) as its view's params, and back: the view
// takes params as the app's address and the embed give them (web/README.md, "Views and
// the address"), so a widget is one more way to set them. Training settings use
// TrainSettings' field names in Python and the short URL keys here (settings.js).

const SEPARATORS = { "\n": "line", "\n\n": "blank" };

/** The training settings' traits as the short keys explorer-train.js reads. */
export function trainParams(m) {
  const p = {};
  if (m.num_merges !== null && m.num_merges !== undefined) {
    p.mode = "merges";
    p.size = String(m.num_merges);
  } else {
    p.mode = "vocab";
    p.size = String(m.vocab_size ?? 1000);
  }
  p.pre = m.pretokenizer;
  if (m.pretokenizer === "custom") p.pattern = m.pattern ?? "";
  p.tie = m.tie_break;
  p.min = String(m.min_count);
  p.special = JSON.stringify(m.special_tokens);
  const sep = m.document_separator;
  if (sep) {
    p.sep = SEPARATORS[sep] || "custom";
    if (p.sep === "custom") p.septext = sep.replace(/\n/g, "\\n");
  }
  return p;
}

const TRAIN_TRAITS = ["vocab_size", "num_merges", "pretokenizer", "pattern", "tie_break", "min_count",
  "special_tokens", "document_separator"];

/** What each view reads from the model, and the traits whose change means new params. */
export const VIEWS = {
  explorer: {
    tag: "bpe-explorer-view",
    watched: ["text", ...TRAIN_TRAITS],
    params: (m) => ({ ...trainParams(m), text: m.text, step: String(m.step) }),
  },
  compare: {
    tag: "bpe-compare-view",
    watched: ["text", "panes", "policy", "corpus", ...TRAIN_TRAITS],
    params: (m) => ({ panes: m.panes.join(","), policy: m.policy, text: m.text }),
  },
  encode: {
    tag: "bpe-encode-view",
    watched: ["text", "tokenizer", "policy", "corpus", ...TRAIN_TRAITS],
    params: (m) => ({ tok: m.tokenizer, policy: m.policy, text: m.text }),
  },
};

/** The model's traits as a plain object (only the names a view reads). */
export function traitsOf(model, names) {
  return Object.fromEntries(names.map((name) => [name, model.get(name)]));
}

/** Whether this view needs a tokenizer trained on the widget's corpus first. */
export function wantsTraining(name, m) {
  if (name === "compare") return m.panes.some((p) => p === "trained" || /^trained@\d+$/.test(p) || p.startsWith("alt_"));
  if (name === "encode") return m.tokenizer === "trained";
  return false;
}

/** The traits a view's params (and its whole text) say, for the ones the user can change there. */
export function traitsFromView(name, view) {
  const params = view.params || {};
  const out = {};
  if (name === "explorer") return out;  // its step comes with bpe-state
  const text = typeof view.fullText === "string" ? view.fullText : view.text;
  if (typeof text === "string") out.text = text;
  if (params.policy !== undefined) out.policy = params.policy || "raise";
  if (name === "compare" && typeof params.panes === "string") out.panes = params.panes.split(",").filter(Boolean);
  if (name === "encode" && params.tok) out.tokenizer = params.tok;
  return out;
}

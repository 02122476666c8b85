// A widget's traits (bpelab/widgets/_widgets.py) as its view's state, and back. Each view's
// state is one plain value with one mapping (share/states.js): links, the embed, lesson files
// and these traits all set it. The training settings are traits with TrainSettings' names
// (vocab_size or num_merges, pretokenizer, …); a recipe (share/recipe.js) holds them under
// settings.js's names, with the widget's text (Explorer) or corpus (Compare, Encode).
import { baseSettings } from "../share/recipe.js";
import * as explore from "../views/explorer/explorer-state.js";
import * as compare from "../views/compare/compare-state.js";
import * as encode from "../views/encode/encode-state.js";

const SEPARATORS = { "\n": "line", "\n\n": "blank" };
const TRAIN_TRAITS = ["vocab_size", "num_merges", "pretokenizer", "pattern", "tie_break", "min_count",
  "special_tokens", "document_separator"];
const TOKENIZERS = [...encode.REFERENCES, "trained"];

/** The training traits as a recipe's settings (settings.js's names; the id layout and limit stay the defaults). */
export function recipeSettings(m) {
  const s = baseSettings();
  if (m.num_merges !== null && m.num_merges !== undefined) Object.assign(s, { size_mode: "merges", size: m.num_merges });
  else Object.assign(s, { size_mode: "vocab", size: m.vocab_size ?? 1000 });
  Object.assign(s, { pretokenizer: m.pretokenizer, tie_break: m.tie_break, min_count: m.min_count, special_tokens: [...m.special_tokens] });
  if (m.pretokenizer === "custom") s.pattern = m.pattern ?? "";
  const sep = m.document_separator;
  if (sep) {
    s.separator = SEPARATORS[sep] || "custom";
    if (s.separator === "custom") s.separator_text = sep.replace(/\n/g, "\\n").replace(/\t/g, "\\t");
  }
  return s;
}

const recipe = (text, m) => (text ? { text, settings: recipeSettings(m) } : null);

/** Per widget: the view's element, the traits it reads, its state from them, and the traits its state gives back. */
export const VIEWS = {
  explorer: {
    tag: "bpe-explorer-view",
    watched: ["text", ...TRAIN_TRAITS],
    state: (m) => {
      const training = recipe(m.text, m);
      return { ...explore.defaults(), tok: training ? "trained" : "", training, step: m.step };
    },
    traits: () => ({}),  // its step comes with each bpe-state
  },
  compare: {
    tag: "bpe-compare-view",
    watched: ["text", "panes", "policy", "corpus", ...TRAIN_TRAITS],
    state: (m) => ({
      ...compare.defaults(), text: m.text, panes: [...m.panes], policy: m.policy,
      training: compare.needsTraining(m.panes) ? recipe(m.corpus, m) : null,
    }),
    traits: (state) => ({ text: state.sample ? undefined : state.text, panes: state.panes, policy: state.policy }),
  },
  encode: {
    tag: "bpe-encode-view",
    watched: ["text", "tokenizer", "policy", "corpus", ...TRAIN_TRAITS],
    state: (m) => ({
      ...encode.defaults(), tok: m.tokenizer, policy: m.policy, text: m.text,
      training: m.tokenizer === "trained" ? recipe(m.corpus, m) : null,
    }),
    // An imported tokenizer's handle has no trait spelling: the trait keeps its value.
    traits: (state) => ({ text: state.sample ? undefined : state.text, policy: state.policy,
      tokenizer: TOKENIZERS.includes(state.tok) ? state.tok : undefined }),
  },
};

/** The model's traits as a plain object (only the names a view reads). */
export function traitsOf(model, names) {
  return Object.fromEntries(names.map((name) => [name, model.get(name)]));
}

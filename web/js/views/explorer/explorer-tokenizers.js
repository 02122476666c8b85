// The tokenizer the explorer shows: the one a state names (trained from its recipe with every step
// recorded, OpenAI's loaded, or the latest imported), the picker's list (the store's tokenizers and
// OpenAI's three, loaded when picked), and where the one on show came from, for the state and its line.
import { store } from "../../store.js";
import { el } from "../../dom.js";

const REFERENCES = [["gpt2", "GPT-2"], ["cl100k", "cl100k_base"], ["o200k", "o200k_base"]];

/** The handle a state's tokenizer has (training or loading it), or null when it names none and there is none. */
export async function resolveTokenizer(view, state) {
  if (state.tok === "trained" && state.training) return trainFor(view, state.training);
  if (REFERENCES.some(([name]) => name === state.tok)) {
    view.showPhase("loading", `Loading ${state.tok}…`);
    return store.reference(state.tok);
  }
  if (state.tok === "imported") {
    const imported = [...store.tokenizers.values()].filter((t) => t.source === "imported").pop();
    if (!imported) throw new Error("this link shows an imported tokenizer, which a link cannot carry: import its files in the Train view, then open the link again.");
    return imported.handle;
  }
  if (state.tok) throw new Error("this link shows a tokenizer made here that no link can name: train it in the Train view and share that.");
  return store.trained || store.current || (view.handle && store.tokenizers.has(view.handle) ? view.handle : null);
}

/** The handle of the tokenizer trained from `recipe`: the store's, or a new run with every step recorded. */
async function trainFor(view, recipe) {
  if (!store.findTrained(recipe)) view.showPhase("training", "Training with every step recorded…");
  view.training = true;  // while it runs, the store's "trained" event is this run's, not the Train view's
  try {
    return await store.trainedFrom(recipe, { say: (text) => { view.ui.status.textContent = text; } });
  } finally {
    view.training = false;
  }
}

/** The picker's options: every tokenizer the store holds, then OpenAI's not loaded yet ("ref:<name>"). */
export function tokenizerOptions() {
  const known = [...store.tokenizers.values()];
  const options = known.map((t) =>
    el("option", { value: t.handle }, `${t.name} (${t.source}, ${t.n_merges.toLocaleString("en-US")} merges)`));
  // OpenAI's tokenizers, loaded when picked: their merges, provenance and the trace (no counts).
  const loaded = new Set(known.map((t) => t.reference).filter(Boolean));
  for (const [name, label] of REFERENCES) {
    if (!loaded.has(name)) options.push(el("option", { value: `ref:${name}` }, `${label} (reference, loads when picked)`));
  }
  return options;
}

/** A value picked in the list as a handle: "ref:<name>" loads that reference first. */
export async function pickedHandle(view, value) {
  if (!value.startsWith("ref:")) return value;
  view.showPhase("loading", `Loading ${value.slice(4)}…`);
  return store.reference(value.slice(4));
}

/**
 * Where the tokenizer `handle` came from: `source` {tok, training} for the state (explorer-state.js)
 * and `line`, what the line beside the picker says.
 */
export function tokenizerOrigin(handle) {
  const info = store.tokenizers.get(handle);
  const recipe = store.recipeOf(handle);
  const source = info.reference ? { tok: info.reference, training: null } : recipe ? { tok: "trained", training: recipe }
    : { tok: info.source === "imported" ? "imported" : "unsaved", training: null };
  const line = info.source === "trained"
    ? `trained on ${info.corpus ? info.corpus.characters.toLocaleString("en-US") : "?"} characters, tie-break ${info.settings ? info.settings.tie_break : "?"}`
    : `${info.source}: merges only, no training counts`;
  return { source, steps: info.n_merges, line };
}

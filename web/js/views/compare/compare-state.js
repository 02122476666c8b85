// Compare's state (share/states.js):
//
//   {text, sample, panes, policy, ws, lang, training}
//   text: the text the panes tokenize, exactly; sample: a bundled sample's id instead ("" for none);
//   panes: their spellings (compare-specs.js); training: the recipe of the trained tokenizer
//   (share/recipe.js) when a pane shows it (trained, trained@K, alt_…), else null.
//
// Params: `panes`, `policy`, `ws`, `text` (z=) or `sample`, `lang=pasted`; for trained panes the
// settings' short keys and the training input as `train_sample` or `train_text` (train_z=). With
// settings but no training input, the compared text is the training text; with neither, the trained
// panes show the tokenizer trained last on the page (training: null).
import { readRecipe, recipeParams, hasSettings, SETTING_PARAMS } from "../../share/recipe.js";
import { DEFAULT_PANES, MAX_PANES, parseSpec, isTrainedSpec } from "./compare-specs.js";

export const POLICIES = ["raise", "allow", "text"];
export const DEFAULT_TEXT = "Xin chào thế giới";
export const KEYS = ["panes", "policy", "ws", "text", "sample", "lang", "train_sample", "train_text", "counts", ...SETTING_PARAMS];
export const FIELDS = { text: "string", sample: "string", panes: "list", policy: "string", ws: "boolean", lang: "string" };

export function defaults() {
  return { text: DEFAULT_TEXT, sample: "", panes: [...DEFAULT_PANES], policy: "raise", ws: true, lang: "bundled", training: null };
}

/** Whether these panes need the trained tokenizer. */
export function needsTraining(panes) {
  return panes.some(isTrainedSpec);
}

const ownInput = (state) => (state.sample ? { sample: state.sample } : { text: state.text });

export function toParams(state, { samples = [] } = {}) {
  const notes = [];
  const params = { panes: state.panes.join(","), policy: state.policy, ws: state.ws ? "1" : "0" };
  if (state.sample) params.sample = state.sample;
  else params.text = state.text;
  if (state.lang !== "bundled") params.lang = state.lang;
  if (needsTraining(state.panes)) {
    if (state.training) {
      const recipe = recipeParams(state.training, { samples, prefix: "train_" });
      Object.assign(params, recipe.params);
      notes.push(...recipe.notes);
    } else {
      notes.push("the trained tokenizer (nothing has been trained yet, so its panes stay empty)");
    }
  }
  if (state.panes.includes("imported")) notes.push("the imported tokenizer (a link cannot carry its files: send them along, to be imported first)");
  return { params, notes };
}

export function fromParams(params, { samples = [] } = {}) {
  const problems = [];
  const state = defaults();
  if (params.panes !== undefined) {
    const panes = String(params.panes).split(",").map((p) => p.trim());
    const bad = panes.filter((p) => !parseSpec(p));
    if (bad.length || !panes.length) {
      problems.push(`panes=${JSON.stringify(String(params.panes).slice(0, 60))}: ${bad.map((b) => JSON.stringify(b.slice(0, 30))).join(", ")} `
        + `${bad.length === 1 ? "is" : "are"} not a pane; use a comma list of gpt2, cl100k, o200k, bytes, trained, trained@K `
        + "(the trained tokenizer after K merges), alt_SIZE_PRE_TIE and imported.");
    } else if (panes.length > MAX_PANES) {
      problems.push(`panes= lists ${panes.length} panes; at most ${MAX_PANES} are shown.`);
    } else {
      state.panes = panes;
    }
  }
  if (params.policy !== undefined) {
    if (POLICIES.includes(params.policy)) state.policy = params.policy;
    else problems.push(`policy=${JSON.stringify(String(params.policy).slice(0, 20))} is not known: use raise, allow or text.`);
  }
  if (params.ws !== undefined) {
    if (params.ws === "0" || params.ws === "1") state.ws = params.ws === "1";
    else problems.push(`ws=${JSON.stringify(String(params.ws).slice(0, 20))} must be 1 (whitespace marks) or 0 (none).`);
  }
  if (params.lang !== undefined) {
    if (params.lang === "bundled" || params.lang === "pasted") state.lang = params.lang;
    else problems.push(`lang=${JSON.stringify(String(params.lang).slice(0, 20))} is not known: use bundled or pasted.`);
  }
  if (params.sample !== undefined && params.text !== undefined) problems.push("Give only one of sample, text and z; got sample and text.");
  if (params.sample !== undefined) {
    if (samples.some((s) => s.id === params.sample)) { state.sample = params.sample; state.text = ""; }
    else problems.push(`There is no sample ${JSON.stringify(String(params.sample).slice(0, 40))}. The bundled samples are: ${samples.map((s) => s.id).join(", ")}.`);
  } else if (params.text !== undefined) {
    state.text = String(params.text);
  }
  // No training input and no setting: the trained panes show the tokenizer trained last on this page.
  if (needsTraining(state.panes) && (params.train_sample !== undefined || params.train_text !== undefined || params.counts !== undefined || hasSettings(params))) {
    state.training = readRecipe(params, { samples, problems, prefix: "train_", fallback: ownInput(state) });
  }
  return { state, problems };
}

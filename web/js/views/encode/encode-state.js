// The Encode view's state (share/states.js):
//
//   {tok, policy, ws, text, sample, training}
//   tok: "gpt2" | "cl100k" | "o200k", "trained" (made from `training`, share/recipe.js), an imported
//        tokenizer's handle (this page only), or "" (the view's choice: the trained one, else cl100k)
//
// Params: `tok`, `policy`, `ws=0`, `text` (z=) or `sample`; with tok=trained the settings'
// short keys and `train_sample` or `train_text` (with settings alone the encoded text is the training
// text; with neither, the tokenizer trained last on the page). `panes` (its first pane is the
// tokenizer) is read for embeds written for compare.
import { readRecipe, recipeParams, hasSettings, SETTING_PARAMS } from "../../share/recipe.js";

export const POLICIES = ["raise", "allow", "text"];
export const REFERENCES = ["gpt2", "cl100k", "o200k"];
export const EXAMPLE = "Hello world! A naïve café in Hà Nội 🙂";
export const KEYS = ["tok", "panes", "policy", "ws", "text", "sample", "train_sample", "train_text", "counts", ...SETTING_PARAMS];
export const FIELDS = { tok: "string", policy: "string", ws: "boolean", text: "string", sample: "string" };
const HANDLE = /^t\d{1,9}$/;

export function defaults() {
  return { tok: "", policy: "raise", ws: true, text: EXAMPLE, sample: "", training: null };
}

const ownInput = (state) => (state.sample ? { sample: state.sample } : { text: state.text });

export function toParams(state, { samples = [] } = {}) {
  const notes = [];
  const params = {};
  if (state.tok) params.tok = state.tok;
  if (state.policy !== "raise") params.policy = state.policy;
  if (!state.ws) params.ws = "0";
  if (state.sample) params.sample = state.sample;
  else params.text = state.text;
  if (state.tok === "trained") {
    if (state.training) {
      const recipe = recipeParams(state.training, { samples, prefix: "train_" });
      Object.assign(params, recipe.params);
      notes.push(...recipe.notes);
    } else {
      notes.push("the trained tokenizer (nothing has been trained yet)");
    }
  }
  if (HANDLE.test(state.tok)) notes.push("the imported tokenizer (a link cannot carry its files: send them along, to be imported first)");
  return { params, notes };
}

export function fromParams(params, { samples = [] } = {}) {
  const problems = [];
  const state = defaults();
  const tok = params.tok ?? (params.panes !== undefined ? String(params.panes).split(",")[0].trim() : undefined);
  if (tok !== undefined && tok !== "") {
    if ([...REFERENCES, "trained"].includes(tok) || HANDLE.test(tok)) state.tok = tok;
    else problems.push(`tok=${JSON.stringify(String(tok).slice(0, 40))} is not a tokenizer: use gpt2, cl100k, o200k or trained.`);
  }
  if (params.policy !== undefined && params.policy !== "") {
    if (POLICIES.includes(params.policy)) state.policy = params.policy;
    else problems.push(`policy=${JSON.stringify(String(params.policy).slice(0, 20))} is not known: use raise, allow or text.`);
  }
  if (params.ws !== undefined) {
    if (params.ws === "0" || params.ws === "1") state.ws = params.ws === "1";
    else problems.push(`ws=${JSON.stringify(String(params.ws).slice(0, 20))} must be 1 (whitespace marks) or 0 (none).`);
  }
  if (params.sample !== undefined && params.text !== undefined) problems.push("Give only one of sample, text and z; got sample and text.");
  if (params.sample !== undefined) {
    if (samples.some((s) => s.id === params.sample)) { state.sample = params.sample; state.text = ""; }
    else problems.push(`There is no sample ${JSON.stringify(String(params.sample).slice(0, 40))}. The bundled samples are: ${samples.map((s) => s.id).join(", ")}.`);
  } else if (params.text !== undefined) {
    state.text = String(params.text);
  }
  // No training input and no setting: the tokenizer trained last on the page (training: null).
  if (state.tok === "trained" && (params.train_sample !== undefined || params.train_text !== undefined || params.counts !== undefined || hasSettings(params))) {
    state.training = readRecipe(params, { samples, problems, prefix: "train_", fallback: ownInput(state) });
  }
  return { state, problems };
}

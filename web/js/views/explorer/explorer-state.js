// The explorer's state (share/states.js):
//
//   {tok, training, step, predict, speed, at, trace}
//   tok: "trained" (made from `training`, a share/recipe.js recipe), "gpt2" | "cl100k" | "o200k"
//        (OpenAI's, merges only), "imported" (the latest imported: no link can carry it), or ""
//        (none named: the app shows the tokenizer trained last, if any), or "unsaved" (one made
//        in the app that no link can name, such as a second configuration from Compare)
//
// Params: `sample`, `text` or `counts` (word counts, a JSON object) and the settings' short keys (tok=trained is then implied), or
// `tok`; `step`, `predict=1`, `speed` (steps per second), `at` (the text window's first
// character), `trace` (the encode trace's text).
import { readRecipe, recipeParams, hasSettings, SETTING_PARAMS } from "../../share/recipe.js";

export const REFERENCES = ["gpt2", "cl100k", "o200k"];
export const SPEEDS = [0.5, 1, 2, 4, 8, 16];
export const DEFAULT_TRACE = "lowest";
export const KEYS = ["tok", "sample", "text", "counts", ...SETTING_PARAMS, "step", "predict", "speed", "at", "trace"];
export const FIELDS = { tok: "string", step: "number", predict: "boolean", speed: "number", at: "number", trace: "string" };
const TOKS = ["trained", ...REFERENCES, "imported"];
const MAX_STEP = 1_000_000;

export function defaults() {
  return { tok: "", training: null, step: 0, predict: false, speed: 2, at: 0, trace: DEFAULT_TRACE };
}

export function toParams(state, { samples = [] } = {}) {
  const notes = [];
  let params = {};
  if (state.tok === "trained" && state.training) {
    const recipe = recipeParams(state.training, { samples });
    params = recipe.params;
    notes.push(...recipe.notes);
  } else if (state.tok === "unsaved" || (state.tok === "trained" && !state.training)) {
    notes.push("the tokenizer on show (it was made here in a way no link can name: train it in the Train view to share it)");
  } else if (state.tok) {
    params.tok = state.tok;
    if (state.tok === "imported") notes.push("the imported tokenizer (a link cannot carry its files: send them along, to be imported first)");
  }
  params.step = String(state.step);
  if (state.predict) params.predict = "1";
  if (state.speed !== 2) params.speed = String(state.speed);
  if (state.at) params.at = String(state.at);
  if (state.trace !== DEFAULT_TRACE) params.trace = state.trace;
  return { params, notes };
}

const whole = (value, hi) => (/^\d{1,10}$/.test(value) && Number(value) <= hi ? Number(value) : null);

export function fromParams(params, { samples = [] } = {}) {
  const problems = [];
  const state = defaults();
  const hasInput = params.sample !== undefined || params.text !== undefined || params.counts !== undefined;
  if (params.tok !== undefined) {
    if (!TOKS.includes(params.tok)) problems.push(`tok=${JSON.stringify(String(params.tok).slice(0, 40))} is not a tokenizer the explorer knows: use ${TOKS.join(", ")}.`);
    else state.tok = params.tok;
  }
  if (hasInput) {
    if (state.tok && state.tok !== "trained") {
      problems.push(`tok=${state.tok} is ${state.tok === "imported" ? "an imported tokenizer" : "OpenAI's tokenizer"}, which is not trained here: `
        + "give either tok or a sample/text to train on, not both.");
    } else {
      state.tok = "trained";
      state.training = readRecipe(params, { samples, problems });
    }
  } else if (state.tok === "trained") {
    problems.push("tok=trained needs the text it is trained on: give sample= or text= (and the settings).");
  } else if (hasSettings(params)) {
    problems.push("The training settings (size, pre, …) need a sample= or text= to train on.");
  }
  if (params.step !== undefined) {
    const step = whole(params.step, MAX_STEP);
    if (step === null) problems.push(`step=${JSON.stringify(String(params.step).slice(0, 20))} must be a whole number of at least 0.`);
    else state.step = step;
  }
  if (params.predict !== undefined) {
    if (params.predict !== "0" && params.predict !== "1") problems.push(`predict=${JSON.stringify(String(params.predict).slice(0, 20))} must be 1 (on) or 0 (off).`);
    else state.predict = params.predict === "1";
  }
  if (params.speed !== undefined) {
    if (!SPEEDS.includes(Number(params.speed))) problems.push(`speed=${JSON.stringify(String(params.speed).slice(0, 20))} is not a speed: use ${SPEEDS.join(", ")} (steps per second).`);
    else state.speed = Number(params.speed);
  }
  if (params.at !== undefined) {
    const at = whole(params.at, 1e9);
    if (at === null) problems.push(`at=${JSON.stringify(String(params.at).slice(0, 20))} must be a whole number of characters.`);
    else state.at = at;
  }
  if (params.trace !== undefined) state.trace = String(params.trace);
  return { state, problems };
}

// The Train view's state (share/states.js): what it trains on and every setting.
//
//   {training: {sample | text | documents, settings}, heldout: ""}
//
// Params: `sample`, `text` (z= when compressed) or `counts` (word counts, a JSON object), the settings' short keys (settings.js),
// `heldout` (the held-out text). Several opened files travel only in a lesson file.
import { baseSettings, readRecipe, recipeParams, SETTING_PARAMS } from "../../share/recipe.js";
import { findLoneSurrogate } from "../../text-input.js";

export const KEYS = ["sample", "text", "counts", ...SETTING_PARAMS, "heldout"];
export const FIELDS = { heldout: "string" };

export function defaults() {
  return { training: { settings: baseSettings() }, heldout: "" };
}

export function toParams(state, { samples = [] } = {}) {
  const { params, notes } = recipeParams(state.training, { samples });
  if (typeof params.text === "string" && findLoneSurrogate(params.text)) {
    delete params.text;
    notes.push("your text (it holds a lone surrogate, which no link or file can carry: delete it)");
  }
  if (state.heldout) params.heldout = state.heldout;
  return { params, notes };
}

export function fromParams(params, { samples = [] } = {}) {
  const problems = [];
  const training = readRecipe(params, { samples, problems });
  const heldout = params.heldout === undefined ? "" : String(params.heldout);
  return { state: { training, heldout }, problems };
}

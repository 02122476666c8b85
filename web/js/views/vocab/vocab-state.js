// The Vocabulary view's state (share/states.js):
//
//   {tok, kind, q, page, training}
//   tok as the Encode view's (encode-state.js); kind: "text" | "hex" | "id"; q: the search;
//   page: 1-based, 100 entries a page; training: the recipe when tok is "trained".
//
// Params: `tok`, `kind`, `q`, `page`; with tok=trained the settings' short keys and
// `train_sample` or `train_text` (train_z=).
import { readRecipe, recipeParams, SETTING_PARAMS } from "../../share/recipe.js";

export const KINDS = ["text", "hex", "id"];
export const KEYS = ["tok", "kind", "q", "page", "train_sample", "train_text", "counts", ...SETTING_PARAMS];
export const FIELDS = { tok: "string", kind: "string", q: "string", page: "number" };
const TOKS = ["gpt2", "cl100k", "o200k", "trained"];
const HANDLE = /^t\d{1,9}$/;

export function defaults() {
  return { tok: "", kind: "text", q: "", page: 1, training: null };
}

export function toParams(state, { samples = [] } = {}) {
  const notes = [];
  const params = {};
  if (state.tok) params.tok = state.tok;
  if (state.q) {
    params.q = state.q;
    if (state.kind !== "text") params.kind = state.kind;
  }
  if (state.page > 1) params.page = String(state.page);
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
  if (params.tok !== undefined && params.tok !== "") {
    if (TOKS.includes(params.tok) || HANDLE.test(params.tok)) state.tok = params.tok;
    else problems.push(`tok=${JSON.stringify(String(params.tok).slice(0, 40))} is not a tokenizer: use gpt2, cl100k, o200k or trained.`);
  }
  if (params.kind !== undefined && params.kind !== "") {
    if (KINDS.includes(params.kind)) state.kind = params.kind;
    else problems.push(`kind=${JSON.stringify(String(params.kind).slice(0, 20))} is not known: use text, hex or id.`);
  }
  if (params.q !== undefined) state.q = String(params.q);
  if (params.page !== undefined && params.page !== "") {
    if (/^\d{1,7}$/.test(params.page) && Number(params.page) >= 1) state.page = Number(params.page);
    else problems.push(`page=${JSON.stringify(String(params.page).slice(0, 20))} must be a whole number of at least 1.`);
  }
  // Without a training input: the tokenizer trained last on the page (training: null).
  if (state.tok === "trained" && (params.train_sample !== undefined || params.train_text !== undefined || params.counts !== undefined)) {
    state.training = readRecipe(params, { samples, problems, prefix: "train_" });
  }
  return { state, problems };
}

// Choosing a tokenizer in the Encode and Vocabulary views: the one trained
// here, imported ones, and OpenAI's three. A choice is a short string that fits
// in a link: "trained", "gpt2", "cl100k", "o200k", or an imported tokenizer's handle.
import { store } from "../store.js";
import { el, fmt } from "../dom.js";

// Entries and id ranges as bpelab.vocab_browse counts them (tests/test_vocab_ids.py checks these lines):
// a rank table's ids are not dense, so "ids 0–100,276" and "100,261 entries" are both true.
export const REFERENCES = {
  gpt2: { label: "GPT-2 (r50k_base)", source: "OpenAI's GPT-2 tokenizer: 50,257 entries, ids 0–50,256" },
  cl100k: { label: "GPT-4 (cl100k_base)", source: "OpenAI's GPT-4 and GPT-3.5 tokenizer: 100,261 entries, ids 0–100,276 (16 of them unused)" },
  o200k: { label: "GPT-4o (o200k_base)", source: "OpenAI's GPT-4o tokenizer: 200,000 entries, ids 0–200,018 (19 of them unused)" },
};
export const DEFAULT_CHOICE = "cl100k";

/** A tokenizer's size in the one word the site uses, entries (its tokens: bytes, merges, special tokens),
 *  with its id range when ids have gaps; `info` is the worker's tokenizer info. */
export function entriesText(info, { ids: withIds = true } = {}) {
  const entries = info.n_base + info.n_merges + Object.keys(info.special_tokens || {}).length;
  const ids = entries === info.n_vocab || !withIds ? "" : `, ids 0–${fmt(info.n_vocab - 1)}`;
  return `${fmt(entries)} ${entries === 1 ? "entry" : "entries"}${ids}`;
}

function imported() {
  return [...store.tokenizers.values()].filter((info) => info.source === "imported");
}

/** The <option>s and the value to select: `wanted` if it is on offer, else the trained one, else the default. */
export function tokenizerOptions(wanted) {
  const mine = [];
  if (store.trained) {
    const info = store.tokenizers.get(store.trained);
    mine.push(el("option", { value: "trained", text: info ? `Trained here (${entriesText(info)})` : "Trained here" }));
  } else if (wanted === "trained") {
    // A link to the trained tokenizer, opened before anything was trained: say so where it is chosen.
    mine.push(el("option", { value: "trained", text: "Trained here (none yet: train one first)" }));
  }
  for (const info of imported()) mine.push(el("option", { value: info.handle, text: `Imported: ${info.name}` }));
  const options = [];
  if (mine.length) options.push(el("optgroup", { label: "Yours" }, ...mine));
  options.push(el("optgroup", { label: "OpenAI's" },
    ...Object.entries(REFERENCES).map(([value, ref]) => el("option", { value, text: ref.label }))));
  const values = [...(store.trained || wanted === "trained" ? ["trained"] : []), ...imported().map((i) => i.handle), ...Object.keys(REFERENCES)];
  const value = values.includes(wanted) ? wanted : store.trained && wanted !== DEFAULT_CHOICE && !REFERENCES[wanted] ? "trained" : REFERENCES[wanted] ? wanted : DEFAULT_CHOICE;
  return { options, value };
}

/** A line to show while a choice loads: OpenAI's tables take seconds the first time; "" when it is at hand. */
export function loadingNote(choice) {
  const name = REFERENCES[choice] ? choice : choice ? null : DEFAULT_CHOICE;
  if (!name) return "";
  const loaded = [...store.tokenizers.values()].some((info) => info.reference === name);
  return loaded ? "" : `Loading ${REFERENCES[name].label} into Python… the first time takes a few seconds.`;
}

/**
 * {handle, info} for a choice; loads a reference tokenizer into the worker the first time. For "trained",
 * `recipe` (share/recipe.js) picks the tokenizer trained from it, when the store has one.
 */
export async function resolveTokenizer(choice, recipe = null) {
  if (REFERENCES[choice] || !choice) {
    const name = REFERENCES[choice] ? choice : DEFAULT_CHOICE;
    const handle = await store.reference(name);
    return { handle, info: `${REFERENCES[name].source}, shipped with this site.` };
  }
  if (choice === "trained") {
    const handle = (recipe && store.findTrained(recipe)) || store.trained;
    if (!handle) throw Object.assign(new Error("no tokenizer has been trained here yet: train one in the Train view, or pick another"), { type: "NoTokenizer" });
    const info = store.tokenizers.get(handle);
    return { handle, info: `Trained here: ${fmt(info.n_merges)} merges, pre-tokenizer ${info.pretokenizer.name}.` };
  }
  const info = store.tokenizers.get(choice);
  if (!info) throw Object.assign(new Error(`the tokenizer ${JSON.stringify(choice)} is gone (Python restarted): import it again, or pick another`), { type: "NoTokenizer" });
  return { handle: choice, info: `Imported from ${info.name}: ${entriesText(info)}, pre-tokenizer ${info.pretokenizer.name}.` };
}

/**
 * The handle of a view's chosen tokenizer, once Python is ready and the tokenizer is loaded.
 * `infoNode` says what is happening meanwhile (loading OpenAI's tables, waiting for Python), then what it is.
 */
export async function useTokenizer(choice, infoNode, recipe = null) {
  const note = loadingNote(choice);
  if (note) infoNode.textContent = note;
  if (store.phase !== "ready") infoNode.textContent = note || "Waiting for Python to start…";
  await store.ready;
  const { handle, info } = await resolveTokenizer(choice, recipe);
  infoNode.textContent = info;
  return handle;
}

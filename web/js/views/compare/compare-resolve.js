// How a compare pane's spelling (compare-specs.js) becomes a worker handle: loading
// OpenAI's tables, deriving trained@K, or training a second configuration.
import { store } from "../../store.js";
import { parseSpec } from "./compare-specs.js";

export class PaneError extends Error {}

let bytesHandle = null;
// `${trained handle}|${spec}` -> {promise of a handle, listeners}: every caller that asks while it
// trains hears its progress (a pane resolved again mid-run joins the run, not a new one).
const altRuns = new Map();
store.addEventListener("restart", () => { bytesHandle = null; altRuns.clear(); });
store.addEventListener("released", () => { bytesHandle = null; altRuns.clear(); });

function trainedOrThrow(trained = store.trained) {
  if (!trained || !store.tokenizers.has(trained)) {
    throw new PaneError("No trained tokenizer yet: train one in the Train view, then come back (or choose another tokenizer for this pane).");
  }
  return trained;
}

/**
 * The worker handle for a pane spelling (loading, deriving or training it as needed).
 * `trained` is the handle the trained panes start from (the view's recipe's; default: the store's latest).
 */
export async function resolveSpec(spec, { onProgress, trained = store.trained } = {}) {
  const p = parseSpec(spec);
  if (!p) throw new PaneError(`${JSON.stringify(spec)} is not a tokenizer this view knows.`);
  await store.ready;
  if (p.kind === "reference") return store.reference(p.name);
  if (p.kind === "bytes") {
    if (!bytesHandle) {
      bytesHandle = store.request("bytes_tokenizer", {}).then((info) => store.add(info));
      bytesHandle.catch(() => { bytesHandle = null; });
    }
    return bytesHandle;
  }
  if (p.kind === "trained") return trainedOrThrow(trained);
  if (p.kind === "trainedAt") {
    const handle = trainedOrThrow(trained);
    const total = store.tokenizers.get(handle).n_merges;
    if (p.k > total) {
      throw new PaneError(`trained@${p.k.toLocaleString("en-US")} asks for more merges than the trained tokenizer has: `
        + `it has ${total.toLocaleString("en-US")}, so use trained@0 to trained@${total}.`);
    }
    return store.atMerges(handle, p.k);
  }
  if (p.kind === "imported") {
    const imported = [...store.tokenizers.values()].filter((t) => t.source === "imported");
    if (!imported.length) throw new PaneError("No imported tokenizer yet: import one in the Train view (Import files).");
    return imported[imported.length - 1].handle;
  }
  // A second configuration, trained on the Train view's text with three settings changed.
  const base = trainedOrThrow(trained);
  const key = `${base}|${spec}`;
  if (!altRuns.has(key)) {
    const { documents, settings, counts, counts_format: countsFormat } = store.training || {};
    if (!documents) throw new PaneError("The training text is not known here: train in the Train view first.");
    const changed = { ...settings, vocab_size: p.size, num_merges: null, pretokenizer: p.pre, pattern: null, tie_break: p.tie };
    const listeners = new Set();
    const input = counts !== undefined ? { counts, counts_format: countsFormat } : {};  // word counts train as word counts
    const promise = store.request("train", { documents, ...input, settings: changed, report: false, name: spec },
      { onProgress: (progress) => { for (const listener of listeners) listener(progress); } })
      .then((info) => { info.alt = true; return store.add(info); });
    promise.catch(() => altRuns.delete(key));
    altRuns.set(key, { promise, listeners });
  }
  const run = altRuns.get(key);
  if (!onProgress) return run.promise;
  run.listeners.add(onProgress);
  return run.promise.finally(() => run.listeners.delete(onProgress));
}

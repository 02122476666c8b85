// The explorer's stepping: which step is wanted and which is drawn. Steps come from Python
// (request explore_step, with the text window at that step for a trained tokenizer), kept for
// stepping back and forth; calls that overlap coalesce, so only the latest step asked for is drawn.
// The view (explorer-view.js) owns the tokenizer on show and draws what this fetched.
import { store } from "../../store.js";

const CACHE = 64;  // step views kept, for stepping back and forth

export class StepLoader {
  /** view: the <bpe-explorer-view> (handle, steps, at, draw(data), fail(error)); window: characters of the text drawn at once. */
  constructor(view, { window }) {
    this.view = view;
    this.windowSize = window;
    this.cache = new Map();  // `${handle}|${k}|${at}` -> explore_step result
    this.target = null;      // the step last asked for
    this.shown = null;       // the step drawn
    this.loading = null;     // the running fetch-and-draw loop
  }

  /** Show step k (clamped); overlapping calls coalesce: only the latest target is drawn. */
  go(k, { force = false } = {}) {
    const view = this.view;
    if (!view.handle) return Promise.resolve();
    k = Math.max(0, Math.min(Number.isFinite(k) ? k : 0, view.steps));
    if (force) this.shown = null;
    this.target = k;
    if (!this.loading) {
      this.loading = (async () => {
        while (view.handle && this.target !== this.shown) {
          const want = this.target;
          const handle = view.handle;
          const data = await this.fetch(handle, want);
          if (handle !== view.handle) continue;
          view.draw(data);
          this.shown = want;
        }
      })().catch((error) => view.fail(error)).finally(() => { this.loading = null; });
    }
    return this.loading;
  }

  async fetch(handle, k) {
    const key = `${handle}|${k}|${this.view.at}`;
    if (this.cache.has(key)) return this.cache.get(key);
    const info = store.tokenizers.get(handle);
    const window = info && info.source === "trained" ? { start: this.view.at, size: this.windowSize } : null;
    const data = await store.request("explore_step", { handle, step: k, window });
    if (this.cache.size >= CACHE) this.cache.delete(this.cache.keys().next().value);
    this.cache.set(key, data);
    return data;
  }

  /** Another tokenizer, or Python restarted: the steps kept are of no use. */
  forget() {
    this.cache.clear();
  }

  /** A tokenizer newly on show: nothing of it is asked for or drawn yet. */
  reset() {
    this.target = null;
    this.shown = null;
  }
}

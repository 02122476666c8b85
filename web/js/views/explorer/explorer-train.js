// The explorer's own training run, for links and the embed that name a sample or a text:
// the same settings keys as the Train view (settings.js), trained with every step recorded.
import { store } from "../../store.js";
import { fromHash, toTrainSettings } from "../../settings.js";

const TRAIN_KEYS = ["sample", "text", "mode", "size", "pre", "pattern", "tie", "min", "special", "sep", "septext", "limit"];
// A sample's settings (samples/index.json names) as URL keys, for the ones a link leaves out.
const SAMPLE_KEYS = { size_mode: "mode", size: "size", pretokenizer: "pre", tie_break: "tie", min_count: "min", special_tokens: "special", separator: "sep" };
const SEPARATORS = { line: "\n", blank: "\n\n" };

let samplesPromise = null;
function samples() {
  samplesPromise ||= fetch(new URL("../../../samples/index.json", import.meta.url)).then((r) => r.json()).then((d) => d.samples)
    .catch((error) => { samplesPromise = null; throw error; });
  return samplesPromise;
}

/** The training keys of a params object, as strings. */
export function ownParams(params) {
  return Object.fromEntries(TRAIN_KEYS.filter((k) => params[k] !== undefined).map((k) => [k, String(params[k])]));
}

/** Train on own.sample (with the sample's settings where own leaves them out) or own.text; returns the handle. */
export async function trainOwn(own, say) {
  let text = own.text;
  let name = "your text";  // how the tokenizer lists read it (else its handle, "t1")
  const merged = { ...own };
  if (own.sample !== undefined) {
    const sample = (await samples()).find((s) => s.id === own.sample);
    if (!sample) throw new Error(`there is no sample ${JSON.stringify(own.sample)}`);
    for (const [name, key] of Object.entries(SAMPLE_KEYS)) {
      if (merged[key] === undefined && sample.settings && name in sample.settings) {
        const value = sample.settings[name];
        merged[key] = Array.isArray(value) ? JSON.stringify(value) : String(value);
      }
    }
    const response = await fetch(new URL(`../../../samples/${sample.file}`, import.meta.url));
    if (!response.ok) throw new Error(`sample ${sample.file}: HTTP ${response.status}`);
    text = await response.text();
    name = sample.id;
  }
  if (typeof text !== "string" || !text) throw new Error("there is no text to train on: give a sample or a text");
  const settings = fromHash(merged);
  const train = toTrainSettings(settings);
  const separator = settings.separator === "custom" ? settings.separator_text.replace(/\\n/g, "\n") : SEPARATORS[settings.separator];
  if (separator) train.document_separator = separator;
  await store.ready;
  const info = await store.train([text], train, {
    truncate: true, char_limit: settings.limit, name,
    onProgress: (p) => { if (p && p.total) say(`Training… ${p.done.toLocaleString("en-US")} of ${p.total.toLocaleString("en-US")} merges`); },
  });
  return info.handle;
}

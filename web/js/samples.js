// The bundled samples (samples/index.json): the list, fetched once per page, and a
// sample's text, decoded as strict UTF-8 so it reaches Python byte for byte.
const INDEX = new URL("../samples/index.json", import.meta.url);

let list = null;
let loaded = null;

/** The samples' descriptions [{id, title, file, settings?, ...}]; a failed fetch is tried again next time. */
export function loadSamples() {
  list ??= fetch(INDEX).then(async (response) => {
    if (!response.ok) throw new Error(`samples/index.json: HTTP ${response.status}`);
    loaded = (await response.json()).samples || [];
    return loaded;
  });
  list.catch(() => { list = null; });
  return list;
}

/** The description of sample `id`, or null. */
export async function findSample(id) {
  return (await loadSamples()).find((s) => s.id === id) || null;
}

/** The exact text of sample `id`; throws an Error saying which sample and why. */
export async function sampleText(id) {
  const sample = await findSample(id);
  if (!sample) throw new Error(`there is no bundled sample ${JSON.stringify(id)}`);
  const response = await fetch(new URL(sample.file, INDEX));
  if (!response.ok) throw new Error(`the sample ${sample.title} could not be loaded: HTTP ${response.status}`);
  return new TextDecoder("utf-8", { fatal: true }).decode(await response.arrayBuffer());
}

/** The samples' descriptions if they have been fetched, else null (for code that cannot wait). */
export function samplesNow() {
  return loaded;
}

// `fetch` for the views inside the notebook bundle. The views fetch the site's own files
// (samples/index.json, the toy corpora, the aligned passages) relative to their module's
// URL; in the bundle that URL is "bpelab-widget:/…" (build_widget.mjs), and the files the
// widgets need are bundled with them, as {path: text}. esbuild's `inject` makes this the
// `fetch` of every bundled module; any other URL goes to the browser's fetch.
import ASSETS from "bpelab-widget:assets";

const SCHEME = "bpelab-widget:/";

export function fetch(input, init) {
  const url = String(typeof input === "object" && input && "url" in input ? input.url : input);
  if (!url.startsWith(SCHEME)) return globalThis.fetch(input, init);
  const path = url.slice(SCHEME.length);
  if (!Object.hasOwn(ASSETS, path)) {
    return Promise.resolve(new Response(`${path} is not in the notebook widget's bundle`, { status: 404, statusText: "Not Found" }));
  }
  const type = path.endsWith(".json") ? "application/json" : "text/plain; charset=utf-8";
  return Promise.resolve(new Response(ASSETS[path], { status: 200, headers: { "content-type": type } }));
}

// The views the app's navigation offers, in order. One line each: the route in
// location.hash (#/route?params), the nav label, the custom element, and the
// module that defines it. A view whose module is missing or fails to load is
// shown as "coming" instead of breaking the page.
export const VIEWS = [
  { route: "train", label: "Train", tag: "bpe-train-view", module: "./views/train/train-view.js" },
  { route: "encode", label: "Encode", tag: "bpe-encode-view", module: "./views/encode/encode-view.js" },
  { route: "vocab", label: "Vocabulary", tag: "bpe-vocab-view", module: "./views/vocab/vocab-view.js" },
  { route: "explore", label: "Explore", tag: "bpe-explorer-view", module: "./views/explorer/explorer-view.js" },
  { route: "compare", label: "Compare", tag: "bpe-compare-view", module: "./views/compare/compare-view.js" },
];

export const DEFAULT_ROUTE = "train";

/** {route, params} of a location.hash: "#/encode?policy=allow" or, as older links were, "#size=9&pre=gpt2" (train). */
export function parseHash(hash) {
  const raw = hash.replace(/^#/, "");
  if (!raw.startsWith("/")) return { route: DEFAULT_ROUTE, params: Object.fromEntries(new URLSearchParams(raw)) };
  const [path, query = ""] = raw.slice(1).split(/\?(.*)/s);
  const route = VIEWS.some((v) => v.route === path) ? path : DEFAULT_ROUTE;
  return { route, params: Object.fromEntries(new URLSearchParams(query)) };
}

/** The hash for a route and its params (empty values left out). */
export function makeHash(route, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  const text = query.toString().replace(/\+/g, "%20");
  return `#/${route}${text ? `?${text}` : ""}`;
}

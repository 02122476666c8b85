// One state per view, written and read in one place. Each view's state is a plain
// value (JSON), and its module (views/<view>/<view>-state.js) maps it to params and
// back; the app's links and address, the embed's parameters and code, lesson files
// and notebook traits all go through these modules. Each one exports:
//
//   KEYS                        the params it reads (every other key is not its own)
//   FIELDS                      {field: "string" | "number" | "boolean" | "list"} of its state, for lesson files
//   defaults()                  the state of a first visit
//   toParams(state, {samples})  -> {params: {key: string}, notes: [what params cannot carry]}
//   fromParams(params, {samples}) -> {state, problems: [one sentence each]}  (params with z= already expanded)
//
// `state.training` (share/recipe.js), where a view has one, is what its trained tokenizer
// learns from; a view shows it as "trained" and trains it when the store has no tokenizer
// trained from that recipe. Add a key: read it in fromParams, write it in toParams, list it
// in KEYS and FIELDS, and add a row to the round-trip test (tests/e2e/test_share.py).
import * as train from "../views/train/train-state.js";
import * as explore from "../views/explorer/explorer-state.js";
import * as compare from "../views/compare/compare-state.js";
import * as encode from "../views/encode/encode-state.js";
import * as vocab from "../views/vocab/vocab-state.js";

/** The state module of each app route. */
export const STATES = { train, explore, compare, encode, vocab };
// The embed's view names and their app routes (vocab has no widget).
export const EMBED_ROUTES = { explorer: "explore", compare: "compare", train: "train", encode: "encode" };
export const ROUTE_VIEWS = Object.fromEntries(Object.entries(EMBED_ROUTES).map(([view, route]) => [route, view]));

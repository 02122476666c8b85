// What "Copy link" and "Copy embed code" give for a view's state: made from the view's
// one mapping (share/states.js), compressed where that is shorter (share/link.js), and a
// lesson file (share/lesson.js) when the state does not fit in a link. No DOM here.
import { STATES, ROUTE_VIEWS, EMBED_ROUTES } from "./states.js";
import { MAX_LINK, compactParams, queryOf } from "./link.js";
import { makeLesson, lessonName } from "./lesson.js";

// Keys that hold a reader's text: an embed code puts them after "#", so they never reach the widget's server.
const PRIVATE_KEYS = ["text", "z", "train_text", "train_z", "trace", "q", "heldout", "pattern", "septext", "special"];
// The height a widget reports at 800 px wide with its default parts, measured by
// build_scripts/measure_widgets.py (explorer: seed 003 at step 5; compare: three panes on a one-line
// text; train: seed 003 before training; encode: a one-line text). tests/e2e/test_widget_parts.py
// checks the explorer's and compare's bounds (760 and 520 px).
export const EMBED_HEIGHTS = { explorer: 750, compare: 510, train: 1690, encode: 670 };

/** The app's address for a route and (compacted) params. */
export function appHash(route, params) {
  const query = queryOf(params);
  return `#/${route}${query ? `?${query}` : ""}`;
}

/**
 * Everything a share control offers for a view's state.
 * @returns {Promise<{href: string|null, length: number, documents: boolean, params: object, notes: string[], view: string,
 *   lesson: object, lessonName: string}>}  href is null when the link would be longer than MAX_LINK, or the state
 *   holds several documents: the lesson file carries the state then.
 */
export async function shareOf(route, state, { pageUrl, samples = [] }) {
  const { params, notes } = STATES[route].toParams(state, { samples });
  const compact = await compactParams(params);
  const url = new URL(pageUrl);
  url.hash = appHash(route, compact);
  const view = ROUTE_VIEWS[route] || route;
  // Several documents (opened files) are one text each: only a lesson file keeps them apart.
  const documents = state.training?.documents !== undefined;
  const fits = url.href.length <= MAX_LINK && !documents;
  return {
    href: fits ? url.href : null, length: url.href.length, documents, params: compact,
    notes: notes.filter((note) => !/opened files/.test(note)), view,
    lesson: makeLesson(view, state), lessonName: lessonName(view),
  };
}

const attr = (value) => String(value).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/**
 * The embed code for a share: an iframe whose address holds the state, or, when that is over the
 * link limit, <bpe-lab src> reading the lesson file from the course page's own folder.
 * @returns {{code: string, needsLesson: boolean}|null}  null for a view with no widget (vocab)
 */
export function embedCode(share, appUrl, { parts = null } = {}) {
  if (!EMBED_ROUTES[share.view]) return null;
  const base = new URL("./", appUrl);
  const title = `BPE Lab: ${share.view}`;
  const height = EMBED_HEIGHTS[share.view];
  const url = new URL("embed.html", base);
  const open = { view: share.view };
  const hidden = {};
  for (const [key, value] of Object.entries(share.params)) (PRIVATE_KEYS.includes(key) ? hidden : open)[key] = value;
  if (parts) open.parts = parts;
  url.search = queryOf(open);
  url.hash = queryOf(hidden);
  if (url.href.length <= MAX_LINK && !share.documents) {
    return {
      needsLesson: false,
      code: `<iframe src="${attr(url.href)}" title="${attr(title)}" width="100%" height="${height}" `
        + `loading="lazy" allow="clipboard-write" style="border:0"></iframe>`,
    };
  }
  return {
    needsLesson: true,
    code: `<script src="${attr(new URL("bpe-lab.js", base).href)}" defer></script>\n`
      + `<bpe-lab src="${attr(share.lessonName)}" title="${attr(title)}" height="${height}"${parts ? ` parts="${attr(parts)}"` : ""}></bpe-lab>`,
  };
}

// Word counts keep their order in a lesson file. A counts table is a JSON object whose key
// order is the table's (the first-seen tie-break follows it), but JSON.parse puts keys that
// look like array indices ("1", "2024") first. So before parsing, every key of the file's text
// gets a mark that no index has; the counts object's keys then come out in the file's order,
// and its text is rebuilt from them for Python, which reads and checks it.
const MARK = "\u0001";
const SPACE = " \t\n\r";

/** The JSON text with every object key prefixed by MARK (written as the escape \u0001). */
function markKeys(text) {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('"', i);  // outside strings, JSON has no quotes
    if (open < 0) { out += text.slice(i); break; }
    let close = open + 1;
    while (close < text.length && text[close] !== '"') close += text[close] === "\\" ? 2 : 1;
    let next = close + 1;
    while (next < text.length && SPACE.includes(text[next])) next++;
    out += text.slice(i, open + 1) + (text[next] === ":" ? "\\u0001" : "") + text.slice(open + 1, close + 1);
    i = close + 1;
  }
  return out;
}

/** A counts object (or its text) as the compact JSON text of its entries, in their order. */
export function countsText(value) {
  if (typeof value === "string") return value;
  const entries = Object.entries(value).map(([key, count]) => [key.startsWith(MARK) ? key.slice(1) : key, count]);
  return `{${entries.map(([key, count]) => `${JSON.stringify(key)}:${JSON.stringify(count)}`).join(",")}}`;
}

/** The top-level "counts" member of a lesson file's text, as text in the file's key order, or undefined. */
export function lessonCounts(text) {
  const marked = JSON.parse(markKeys(text));
  const value = marked && typeof marked === "object" ? marked[`${MARK}counts`] : undefined;
  if (value === undefined || value === null || typeof value !== "object" || Array.isArray(value)) return value;
  return countsText(value);
}

const PLACEHOLDER = "\u0000bpelab-counts\u0000";

/** JSON.stringify(lesson, null, 2), with `counts` (a JSON object's text) written as that object itself. */
export function stringifyLesson(lesson) {
  if (typeof lesson.counts !== "string") return JSON.stringify(lesson, null, 2);
  const text = JSON.stringify({ ...lesson, counts: PLACEHOLDER }, null, 2);
  return text.replace(JSON.stringify(PLACEHOLDER), () => lesson.counts);
}

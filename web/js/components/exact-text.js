// The text a view works on, held apart from the <textarea> that shows it. A textarea's
// value turns every CR LF and lone CR into LF, so a text set by a command, a file, a link
// or a lesson file is kept here exactly and the box only shows it; a note under the box
// says what it cannot show as is. Typing in the box makes the box's value the text again.
//
//   const text = new ExactText(textarea, noteElement, { onInput });
//   text.value = "a\rb";   // exact; the box shows "a⏎b", the note counts 1 lone carriage return
//   text.value               // "a\rb" until the reader edits the box
import { fmt } from "../dom.js";

const plural = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`;

/** What a textarea cannot show as is: {cr, crlf, controls}. cr: lone carriage returns (a CR not
 *  followed by LF, which the box draws as a line break it is not); crlf: CR LF line ends (drawn as the
 *  line breaks they are, but the box's value holds them as LF); controls: C0 controls but tab and LF, and DEL. */
export function hiddenCharacters(text) {
  let cr = 0;
  let crlf = 0;
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) { if (text.charCodeAt(i + 1) === 10) crlf += 1; else cr += 1; }
    else if ((c < 32 && c !== 9 && c !== 10) || c === 127) controls += 1;
  }
  return { cr, crlf, controls };
}

/** The note for a text, or "" when the box shows it as it is. */
export function hiddenNote(text) {
  const { cr, crlf, controls } = hiddenCharacters(text);
  if (!cr && !crlf && !controls) return "";
  const sentences = [];
  if (cr || controls) {
    const parts = [];
    if (cr) parts.push(`shows ${plural(cr, "lone carriage return (CR) as a line break", "lone carriage returns (CR) as line breaks")}`);
    if (controls) parts.push(`cannot show ${plural(controls, "control character", "control characters")} (such as NUL)`);
    sentences.push(`The box ${parts.join(" and ")}; the text keeps ${cr + controls === 1 ? "it" : "them"} exactly, and every count and id is for the exact text.`);
  }
  if (crlf) sentences.push(`${cr || controls ? "Its" : "The text's"} ${crlf === 1 ? "1 line end is CR LF, kept as it is" : `${fmt(crlf)} line ends are CR LF, kept as they are`}.`);
  if (cr || crlf) sentences.push("Typing in the box makes every line end a line feed (LF).");
  return sentences.join(" ");
}

// A textarea lays out all it holds at once: a million characters took Chromium 1.8 s a frame.
// With { boxMax } (compare and encode), a longer text set by a command, a file or a link is kept whole
// here while the box shows (read-only) its first boxMax characters, and the note says so.
export const BOX_MAX = 20_000;

/** The first `max` UTF-16 units of text, not splitting a surrogate pair. */
function head(text, max) {
  let end = Math.min(max, text.length);
  const c = text.charCodeAt(end - 1);
  if (end < text.length && c >= 0xd800 && c <= 0xdbff) end -= 1;
  return text.slice(0, end);
}

export class ExactText {
  /** @param {HTMLTextAreaElement} box  @param {HTMLElement} note  @param {{onInput?: () => void}} hooks */
  constructor(box, note, { onInput, boxMax = Infinity } = {}) {
    this.boxMax = boxMax;
    this.box = box;
    this.note = note;
    this.text = box.value;
    note.classList.add("hint", "exact-note");
    note.hidden = true;
    if (!note.id) note.id = `${box.id || "text"}-exact-note`;
    this.cut = false;
    box.addEventListener("input", () => {
      this.text = box.value;
      this.cut = false;
      this.showNote();
      onInput?.();
    });
  }

  get value() {
    return this.text;
  }

  set value(text) {
    this.text = String(text);
    this.cut = this.text.length > this.boxMax;
    this.box.value = this.cut ? head(this.text, this.boxMax) : this.text;
    this.box.readOnly = this.cut;
    this.box.toggleAttribute("data-cut", this.cut);  // why it is read-only, for state-hold.js
    this.showNote();
  }

  showNote() {
    const shown = this.cut ? `The box shows the first ${fmt(this.box.value.length)} of ${fmt(this.text.length)} characters, read-only `
      + "(a box holding them all would freeze the page); the text is kept whole, and every count and id is for the whole text. " : "";
    const note = shown + (this.cut ? hiddenNote(this.box.value) : hiddenNote(this.text));
    this.note.textContent = note;
    this.note.hidden = !note;
    const ids = (this.box.getAttribute("aria-describedby") || "").split(/\s+/).filter((id) => id && id !== this.note.id);
    if (note) ids.push(this.note.id);
    if (ids.length) this.box.setAttribute("aria-describedby", ids.join(" "));
    else this.box.removeAttribute("aria-describedby");
  }
}

/** A refusal for a text that is not valid Unicode (a lone surrogate), or null. */
export function loneSurrogateProblem(text) {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { i++; continue; }
    return `the text is not valid Unicode: it holds a lone surrogate (U+${c.toString(16).toUpperCase()}) at index ${i} of the string. `
      + "Send whole characters (a surrogate pair, or the character itself).";
  }
  return null;
}

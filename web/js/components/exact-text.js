// The text a view works on, held apart from the <textarea> that shows it. A textarea's
// value turns every CR LF and lone CR into LF, so a text set by a command, a file, a link
// or a lesson file is kept here exactly and the box only shows it; a note under the box
// says what it cannot show as is. Typing in the box makes the box's value the text again.
//
//   const text = new ExactText(textarea, noteElement, { onInput });
//   text.value = "a\r\nb";   // exact; the box shows "a⏎b", the note counts 1 carriage return
//   text.value               // "a\r\nb" until the reader edits the box
import { fmt } from "../dom.js";

const plural = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`;

/** What a textarea cannot show as is: {cr, controls} (controls: C0 controls but tab and LF, and DEL). */
export function hiddenCharacters(text) {
  let cr = 0;
  let controls = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13) cr += 1;
    else if ((c < 32 && c !== 9 && c !== 10) || c === 127) controls += 1;
  }
  return { cr, controls };
}

/** The note for a text, or "" when the box shows it as it is. */
export function hiddenNote(text) {
  const { cr, controls } = hiddenCharacters(text);
  if (!cr && !controls) return "";
  const parts = [];
  if (cr) parts.push(`shows ${plural(cr, "carriage return (CR)", "carriage returns (CR)")} as line breaks`);
  if (controls) parts.push(`cannot show ${plural(controls, "control character", "control characters")} (such as NUL)`);
  return `The box ${parts.join(" and ")}; the text keeps ${cr + controls === 1 ? "it" : "them"} exactly, and every count and id is for the exact text.`
    + (cr ? " Typing in the box turns the carriage returns into line breaks." : "");
}

export class ExactText {
  /** @param {HTMLTextAreaElement} box  @param {HTMLElement} note  @param {{onInput?: () => void}} hooks */
  constructor(box, note, { onInput } = {}) {
    this.box = box;
    this.note = note;
    this.text = box.value;
    note.classList.add("hint", "exact-note");
    note.hidden = true;
    if (!note.id) note.id = `${box.id || "text"}-exact-note`;
    box.addEventListener("input", () => {
      this.text = box.value;
      this.showNote();
      onInput?.();
    });
  }

  get value() {
    return this.text;
  }

  set value(text) {
    this.text = String(text);
    this.box.value = this.text;
    this.showNote();
  }

  showNote() {
    const note = hiddenNote(this.text);
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

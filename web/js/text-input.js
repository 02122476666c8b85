// Text that goes into training: the character limit, strict UTF-8 decoding
// of files, lone surrogates in pasted text, and splitting into documents.
// "Characters" are Unicode code points, as Python's len() counts them, so the
// counter, the limit and the manifest agree.

export const DEFAULT_CHAR_LIMIT = 1_000_000;

/** Length of the valid UTF-8 sequence starting at i, or 0 if it is not one. */
export function utf8SequenceLength(bytes, i) {
  const b0 = bytes[i];
  if (b0 < 0x80) return 1;
  let need, min;
  if (b0 >= 0xc2 && b0 <= 0xdf) { need = 1; min = 0x80; }
  else if (b0 >= 0xe0 && b0 <= 0xef) { need = 2; min = 0x800; }
  else if (b0 >= 0xf0 && b0 <= 0xf4) { need = 3; min = 0x10000; }
  else return 0;
  let cp = b0 & (0x3f >> need);
  for (let k = 1; k <= need; k++) {
    const b = bytes[i + k];
    if (b === undefined || (b & 0xc0) !== 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return need + 1;
}

export class TextInputError extends Error {
  /** `subject` is the file name inside the message, which the page shows bidi-isolated. */
  constructor(message, subject = null) { super(message); this.name = "TextInputError"; this.subject = subject; }
}

/** Number of code points in a JS string (a surrogate pair is one character). */
export function countChars(text) {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) { n--; i++; }
    }
  }
  return n;
}

/** Line (1-based), column (1-based, in characters) of a UTF-16 index. */
function lineColumn(text, index) {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) { line++; lineStart = i + 1; }
  return { line, column: countChars(text.slice(lineStart, index)) + 1, char: countChars(text.slice(0, index)) };
}

/** null, or where the first lone surrogate is: {index, line, column, char, code}. */
export function findLoneSurrogate(text) {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { i++; continue; }
    return { index: i, code: c, ...lineColumn(text, i) };
  }
  return null;
}

export function loneSurrogateMessage(where, what = "The text") {
  const code = where.code.toString(16).toUpperCase();
  return `${what} contains a lone surrogate (U+${code}) at character ${where.char + 1} ` +
    `(line ${where.line}, column ${where.column}). It is half of an emoji or other character that lost its other half, ` +
    `often by copying from a program that cut a string in the wrong place, and it cannot be written as UTF-8. ` +
    `Delete it or paste the text again.`;
}

/** The offset of the first byte that is not valid UTF-8, or -1. */
export function firstInvalidUtf8(bytes) {
  let i = 0;
  while (i < bytes.length) {
    if (bytes[i] < 0x80) { i++; continue; }
    const n = utf8SequenceLength(bytes, i);
    if (n === 0) return i;
    i += n;
  }
  return -1;
}

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** Decode a file's bytes as UTF-8, or throw a TextInputError naming the byte offset and line. */
export function decodeUtf8(bytes, name) {
  if ((bytes[0] === 0xFF && bytes[1] === 0xFE) || (bytes[0] === 0xFE && bytes[1] === 0xFF)) {
    throw new TextInputError(`${name} is UTF-16 (it starts with a UTF-16 byte order mark). Save it as UTF-8 ` +
      "(for example with iconv -f utf-16 -t utf-8) and open it again.", name);
  }
  try {
    return strictDecoder.decode(bytes);
  } catch {
    const offset = firstInvalidUtf8(bytes);
    let line = 1;
    for (let i = 0; i < offset; i++) if (bytes[i] === 10) line++;
    const shown = Array.from(bytes.subarray(offset, offset + 4), (b) => b.toString(16).toUpperCase().padStart(2, "0")).join(" ");
    throw new TextInputError(
      `${name} is not valid UTF-8: the byte at offset ${offset} (line ${line}) starts bytes ${shown}, which no UTF-8 character uses. ` +
      `Save the file as UTF-8 (for example with iconv -f latin1 -t utf-8) and open it again.`, name);
  }
}

/** Read File objects as documents [{name, text, chars}]; throws on the first bad file. */
export async function readTextFiles(files) {
  const out = [];
  for (const file of files) {
    if (/\.(json|bpe|tiktoken|zip)$/i.test(file.name)) {
      throw new TextInputError(`${file.name} looks like a tokenizer file, not training text: drop it on Import to load it.`, file.name);
    }
    const bytes = new Uint8Array(await file.arrayBuffer());
    if (bytes.length === 0) throw new TextInputError(`${file.name} is empty: there is no text in it to train on.`, file.name);
    const text = decodeUtf8(bytes, file.name);
    out.push({ name: file.name, text, chars: countChars(text), bytes: bytes.length });
  }
  return out;
}

/** The separator string a setting stands for ("" = none). */
export function separatorString(mode, custom) {
  if (mode === "line") return "\n";
  if (mode === "blank") return "\n\n";
  if (mode === "custom") return (custom || "").replace(/\\n/g, "\n").replace(/\\t/g, "\t");
  return "";
}


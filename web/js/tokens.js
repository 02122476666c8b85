// How a token's bytes are shown: whole UTF-8 characters as text, with ␣ for a
// space, ⏎ for a newline and ⇥ for a tab, and every byte that does not form a
// complete character (a token that splits one) as a chip like ⟨E1⟩.
import { el } from "./dom.js";

export function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

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

const VISIBLE = { " ": "␣", "\n": "⏎", "\t": "⇥", "\r": "␍" };
const decoder = new TextDecoder();
const hex2 = (b) => b.toString(16).toUpperCase().padStart(2, "0");

/** Segments of a token: [{kind: "text"|"space"|"byte", text}] */
export function tokenSegments(bytes) {
  const segments = [];
  let i = 0;
  while (i < bytes.length) {
    const n = utf8SequenceLength(bytes, i);
    if (n === 0) {
      segments.push({ kind: "byte", text: hex2(bytes[i]) });
      i += 1;
      continue;
    }
    const ch = decoder.decode(bytes.subarray(i, i + n));
    i += n;
    if (VISIBLE[ch]) segments.push({ kind: "space", text: VISIBLE[ch] });
    else if (n === 1 && (bytes[i - 1] < 0x20 || bytes[i - 1] === 0x7f)) segments.push({ kind: "byte", text: hex2(bytes[i - 1]) });
    else {
      const last = segments[segments.length - 1];
      if (last && last.kind === "text") last.text += ch;
      else segments.push({ kind: "text", text: ch });
    }
  }
  return segments;
}

/** Plain-text rendering, for titles and screen readers: "␣the", "⟨E1⟩". */
export function tokenLabel(bytes) {
  return tokenSegments(bytes).map((s) => (s.kind === "byte" ? `⟨${s.text}⟩` : s.text)).join("");
}

/** A <span class="tok"> for one token. */
export function tokenNode(bytes) {
  const node = el("span", { className: "tok", title: `${bytes.length} byte${bytes.length === 1 ? "" : "s"}: ${Array.from(bytes, hex2).join(" ")}` });
  if (bytes.length === 0) { node.textContent = "∅"; return node; }
  for (const seg of tokenSegments(bytes)) {
    if (seg.kind === "text") node.append(document.createTextNode(seg.text));
    else node.append(el("span", { className: seg.kind === "byte" ? "chip" : "ws", text: seg.text }));
  }
  return node;
}

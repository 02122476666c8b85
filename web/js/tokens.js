// How a token's bytes are shown: whole UTF-8 characters as text, with ␣ for a
// space, ⏎ for a newline and ⇥ for a tab, and every byte that does not form a
// complete character (a token that splits one) as a chip like ⟨E1⟩.
import { el } from "./dom.js";
import { utf8SequenceLength } from "./text-input.js";

export function hexToBytes(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
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

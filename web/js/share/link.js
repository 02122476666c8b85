// Params on an address: the query after "#/route?" (the app) or after "embed.html?…#…"
// (the widget). A long text goes compressed, as z= (and train_text as train_z=), when
// that is shorter; a link longer than MAX_LINK is not offered: a lesson file carries
// what it cannot (share/lesson.js).
//
// Pure but for CompressionStream / DecompressionStream (deflate-raw), which every
// browser the site supports has.

import { DEFAULT_CHAR_LIMIT, countChars } from "../text-input.js";

// Longer links are cut by mail clients, chat apps and some servers.
export const MAX_LINK = 6000;
// Text keys and the keys of their compressed forms.
export const COMPRESSED = { text: "z", train_text: "train_z" };

/** base64url (no padding) of bytes. */
export function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error("it holds characters outside base64url (A-Z a-z 0-9 - _)");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

// Characters deflated per task: the stream deflates on the main thread (1,000,000 characters in one go
// held it for 110 ms), so a long text goes in parts with a task boundary between them.
const DEFLATE_CHARS = 65_536;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

/** The z= form of a text: UTF-8, deflate-raw, base64url. */
export async function compressText(text) {
  const stream = new CompressionStream("deflate-raw");
  const bytes = new Response(stream.readable).arrayBuffer();
  const writer = stream.writable.getWriter();
  const encoder = new TextEncoder();
  for (let start = 0; start < text.length;) {
    let end = Math.min(start + DEFLATE_CHARS, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;  // a surrogate pair stays whole
    await writer.write(encoder.encode(text.slice(start, end)));
    start = end;
    if (start < text.length) await nextTask();
  }
  await writer.close();
  return toBase64Url(new Uint8Array(await bytes));
}

// A z= value unpacks to at most this many characters (the site's character limit): a small
// link that inflates to gigabytes (a decompression bomb) stops there with a message.
export const UNPACKED_MAX = DEFAULT_CHAR_LIMIT;

/** The text of a z= value; throws Error saying what is wrong with it (too long: stops inflating at `limit` characters). */
export async function decompressText(value, limit = UNPACKED_MAX) {
  const bytes = fromBase64Url(value);
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw")).getReader();
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const parts = [];
  let units = 0;  // UTF-16 code units so far; characters (code points) are at most as many
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch {
      throw new Error("it is not deflate-raw data (make it with CompressionStream(\"deflate-raw\"), then base64url)");
    }
    let part;
    try {
      part = decoder.decode(chunk.done ? undefined : chunk.value, { stream: !chunk.done });
    } catch {
      reader.cancel().catch(() => {});
      throw new Error("it does not unpack to UTF-8 text");
    }
    parts.push(part);
    units += part.length;
    // Past the limit even if every character were a surrogate pair: stop inflating now.
    if (units > 2 * limit || (units > limit && countChars(parts.join("")) > limit)) {
      reader.cancel().catch(() => {});
      throw new Error(`it unpacks to more than the limit of ${limit.toLocaleString("en-US")} characters (unpacking stopped there)`);
    }
    if (chunk.done) break;
  }
  return parts.join("");
}

/** A query string of params (empty values left out; spaces as %20, so a text reads back exactly). */
export function queryOf(params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  return query.toString().replace(/\+/g, "%20");
}

/** The params with each long text compressed where that makes the query shorter. */
export async function compactParams(params) {
  const out = { ...params };
  for (const [key, zkey] of Object.entries(COMPRESSED)) {
    if (typeof out[key] !== "string" || out[key].length < 40) continue;
    const z = await compressText(out[key]);
    // Percent-encoding never shortens: key=value is at least that many characters, so only a z= near that
    // length needs the exact query (encoding a 1,000,000-character text took the main thread 240 ms).
    const least = key.length + 1 + out[key].length;
    if (z.length < least - zkey.length - 1 || z.length < queryOf({ [key]: out[key] }).length - zkey.length - 1) {
      delete out[key];
      out[zkey] = z;
    }
  }
  return out;
}

/**
 * Params with z= and train_z= unpacked into text and train_text; problems as sentences.
 * @param {object} params  {key: string}
 */
export async function expandParams(params, problems) {
  const out = { ...params };
  for (const [key, zkey] of Object.entries(COMPRESSED)) {
    if (out[zkey] === undefined) continue;
    if (out[key] !== undefined) {
      problems.push(`Give only one of ${key.replace("text", "sample")}, ${key} and ${zkey}; got ${key} and ${zkey}.`);
    } else {
      try {
        out[key] = await decompressText(out[zkey]);
      } catch (error) {
        problems.push(`${zkey}= could not be read: ${error.message}.`);
      }
    }
    delete out[zkey];
  }
  return out;
}

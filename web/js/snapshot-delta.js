// The memory snapshot is stored as its difference from the memory Pyodide's wasm starts with
// (issue 23). The first 3.8 MB of Python's memory are the wasm's data segments: the C
// library's and the interpreter's static data, mostly unchanged after start-up. Stored as
// they are, they cost 1.5 MB of the gzipped snapshot, and the same bytes come again inside
// pyodide.asm.wasm. XOR-ed with those segments they are nearly all zeros (64 KB gzipped).
// XOR is its own inverse: make_snapshot.mjs (Node) encodes with xorImage and
// snapshot-loader.js (a browser worker) decodes with the same function. The image is XOR-ed
// word by word (a few ms for 3.8 MB); byte by byte it took 100 ms and more in a busy browser.

/**
 * The active data segments of a wasm binary: a flat array of (memory offset, start, end)
 * triples, start and end being byte positions in `wasm`. (Flat: Pyodide's wasm has 14,579
 * segments, and an object for each slowed the first, unoptimised run in the browser.)
 */
export function dataSegments(wasm) {
  let at = 8;  // after the magic number and the version
  const leb = () => {
    let value = 0;
    let scale = 1;
    let byte;
    do {
      byte = wasm[at++];
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return value;
  };
  if (wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 || wasm[3] !== 0x6d) {
    throw new Error("pyodide.asm.wasm is not a WebAssembly binary");
  }
  while (at < wasm.length) {
    const id = wasm[at++];
    const size = leb();
    if (id !== 11) {  // 11: the data section
      at += size;
      continue;
    }
    const count = leb();
    const segments = new Float64Array(count * 3);
    let used = 0;
    for (let i = 0; i < count; i++) {
      const flags = leb();
      if (flags === 2) leb();  // an explicit memory index
      if (flags === 1) {       // passive: copied in by code, not at start-up
        at += leb();
        continue;
      }
      // An active segment: i32.const OFFSET, end. Pyodide's are all at fixed addresses.
      if (wasm[at++] !== 0x41) throw new Error("a data segment of pyodide.asm.wasm has no constant offset");
      const offset = leb();
      if (wasm[at++] !== 0x0b) throw new Error("a data segment of pyodide.asm.wasm has a malformed offset");
      const length = leb();
      segments[used++] = offset;
      segments[used++] = at;
      segments[used++] = at + length;
      at += length;
    }
    return segments.subarray(0, used);
  }
  throw new Error("pyodide.asm.wasm has no data section");
}

/**
 * The memory the wasm starts with, up to the end of its last data segment (a multiple of 4
 * bytes long): the segments copied to their offsets, zeros between them.
 */
export function dataImage(wasm, segments = dataSegments(wasm)) {
  let end = 0;
  for (let i = 0; i < segments.length; i += 3) end = Math.max(end, segments[i] + segments[i + 2] - segments[i + 1]);
  const image = new Uint8Array(Math.ceil(end / 4) * 4);
  for (let i = 0; i < segments.length; i += 3) {
    const offset = segments[i];
    const start = segments[i + 1];
    const stop = segments[i + 2];
    if (stop - start > 512) {
      image.set(wasm.subarray(start, stop), offset);
    } else {  // most segments are short: a view for each costs more than the copy
      for (let from = start, to = offset; from < stop; from++, to++) image[to] = wasm[from];
    }
  }
  return image;
}

/**
 * A checksum of a data image (8 hex digits): the worker XORs the image back in only if it is
 * the one make_snapshot.mjs used. It guards against a mismatched pyodide.asm.wasm, not an
 * attacker, and needs no crypto.subtle (absent on plain http).
 */
export function imageChecksum(image) {
  const words = new Uint32Array(image.buffer, image.byteOffset, image.byteLength / 4);
  let hash = 0x811c9dc5 ^ words.length;
  for (let i = 0; i < words.length; i++) hash = Math.imul(hash ^ words[i], 0x01000193) ^ (hash >>> 15);
  return (hash >>> 0).toString(16).padStart(8, "0");
}

/** XOR `memory` (the snapshot's wasm memory, after its header; 4-byte aligned) in place with a data image. */
export function xorImage(memory, image) {
  if (image.byteLength > memory.byteLength) throw new Error("the wasm's data lies beyond the snapshot's memory");
  if (memory.byteOffset % 4) throw new Error("the snapshot's memory does not start on a 4-byte boundary");
  const target = new Uint32Array(memory.buffer, memory.byteOffset, image.byteLength / 4);
  const source = new Uint32Array(image.buffer, image.byteOffset, image.byteLength / 4);
  for (let i = 0; i < source.length; i++) target[i] ^= source[i];
}

// Pyodide 314's snapshot header: a magic number, then the header's length; wasm memory follows in 64 KiB pages.
export const SNAPSHOT_MAGIC = 1886286592;

/** The byte length of a Pyodide memory snapshot's header, or null when `snapshot` is not one. */
export function snapshotHeaderLength(snapshot) {
  if (snapshot.byteLength < 8) return null;
  const view = new DataView(snapshot.buffer, snapshot.byteOffset, 8);
  const length = view.getUint32(4, true);
  const fits = length < snapshot.byteLength && (snapshot.byteLength - length) % 65536 === 0;
  return view.getUint32(0, true) === SNAPSHOT_MAGIC && fits ? length : null;
}

// The memory snapshot is stored as its difference from the memory Pyodide's wasm starts with
// (issue 23). The first 3.8 MB of Python's memory are the wasm's data segments: the C
// library's and the interpreter's static data, mostly unchanged after start-up. Stored as
// they are, they cost 1.5 MB of the gzipped snapshot, and the same bytes come again inside
// pyodide.asm.wasm. XOR-ed with those segments they are nearly all zeros (64 KB gzipped).
// XOR is its own inverse: make_snapshot.mjs (Node) encodes with xorDataSegments and
// snapshot-loader.js (a browser worker) decodes with the same function.

/** Where a wasm binary's data section lies, and its active segments ({offset, start, end}). */
export function dataSegments(wasm) {
  const bytes = wasm;
  let at = 8;  // after the magic number and the version
  const leb = () => {
    let value = 0;
    let scale = 1;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * scale;
      scale *= 128;
    } while (byte & 0x80);
    return value;
  };
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw new Error("pyodide.asm.wasm is not a WebAssembly binary");
  }
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = leb();
    const end = at + size;
    if (id !== 11) {  // 11: the data section
      at = end;
      continue;
    }
    const section = { start: at, end, segments: [] };
    for (let count = leb(); count > 0; count--) {
      const flags = leb();
      if (flags === 2) leb();  // an explicit memory index
      if (flags === 1) {       // passive: copied in by code, not at start-up
        at += leb();
        continue;
      }
      // An active segment: i32.const OFFSET, end. Pyodide's are all at fixed addresses.
      if (bytes[at++] !== 0x41) throw new Error("a data segment of pyodide.asm.wasm has no constant offset");
      const offset = leb();
      if (bytes[at++] !== 0x0b) throw new Error("a data segment of pyodide.asm.wasm has a malformed offset");
      const length = leb();
      section.segments.push({ offset, start: at, end: at + length });
      at += length;
    }
    return section;
  }
  throw new Error("pyodide.asm.wasm has no data section");
}

/** XOR `memory` (the snapshot's wasm memory, without its header) in place with the wasm's data segments. */
export function xorDataSegments(memory, wasm, section = dataSegments(wasm)) {
  for (const { offset, start, end } of section.segments) {
    if (offset + end - start > memory.length) throw new Error("a data segment lies beyond the snapshot's memory");
    for (let from = start, to = offset; from < end; from++, to++) memory[to] ^= wasm[from];
  }
}

/**
 * A checksum of the data section (FNV-1a, 8 hex digits): the worker XORs the segments back
 * in only if pyodide.asm.wasm's is the one make_snapshot.mjs used. It guards against a
 * mismatched file, not an attacker, and needs no crypto.subtle (absent on plain http).
 */
export function dataChecksum(wasm, section = dataSegments(wasm)) {
  let hash = 0x811c9dc5;
  for (let at = section.start; at < section.end; at++) hash = Math.imul(hash ^ wasm[at], 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, "0");
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

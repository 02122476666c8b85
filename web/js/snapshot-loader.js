// A helper worker (a module): downloads the gzip-compressed Pyodide memory snapshot and
// inflates it, on a thread of its own, while the boot worker starts Pyodide's runtime
// (issue 16). The file holds the memory XOR-ed with pyodide.asm.wasm's data segments
// (issue 23, js/snapshot-delta.js): this worker also fetches the wasm, which the runtime is
// downloading at the same moment (the browser's cache serves the second request from the
// first; bench_site.py counts one download), and XORs the segments back in.
// In:  {url, bytes, wasmURL, checksum}  the snapshot's address and inflated length, the wasm's
//      address and its data section's checksum (build.json `snapshot`)
// Out: {ok: true, buffer} (transferred) | {ok: false, message}
import { dataChecksum, dataSegments, snapshotHeaderLength, xorDataSegments } from "./snapshot-delta.js";

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${new URL(url).pathname}: HTTP ${response.status}`);
  return response;
}

self.onmessage = async ({ data: { url, bytes, wasmURL, checksum } }) => {
  try {
    const wasmReady = download(wasmURL).then((response) => response.arrayBuffer());
    wasmReady.catch(() => {});  // awaited below; an early failure must not go unhandled
    const response = await download(url);
    const memory = new Uint8Array(bytes);
    const reader = response.body.pipeThrough(new DecompressionStream("gzip")).getReader();
    let filled = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (filled + value.byteLength > bytes) throw new Error(`it has more than the ${bytes} bytes the build made`);
      memory.set(value, filled);
      filled += value.byteLength;
    }
    if (filled !== bytes) throw new Error(`it has ${filled} bytes, not the ${bytes} the build made`);
    const headerLength = snapshotHeaderLength(memory);
    if (headerLength === null) throw new Error("it is not a Pyodide memory snapshot");
    const wasm = new Uint8Array(await wasmReady);
    const section = dataSegments(wasm);
    if (dataChecksum(wasm, section) !== checksum) {
      throw new Error("it was made against another pyodide.asm.wasm (its data section differs)");
    }
    xorDataSegments(memory.subarray(headerLength), wasm, section);
    self.postMessage({ ok: true, buffer: memory.buffer }, [memory.buffer]);
  } catch (error) {
    self.postMessage({ ok: false, message: String(error && error.message ? error.message : error) });
  }
};

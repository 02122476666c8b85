// A helper worker (a module): downloads the gzip-compressed Pyodide memory snapshot and
// inflates it, on a thread of its own, while the boot worker starts Pyodide's runtime
// (issue 16). The file holds the memory XOR-ed with pyodide.asm.wasm's data segments
// (issue 23, js/snapshot-delta.js): this worker also fetches the wasm, which the runtime is
// downloading too (the browser's cache serves the second request from the first: bench_site.py
// counts one download), and XORs the segments back in.
// In:  {url, bytes, wasmURL, checksum}  the snapshot's address and inflated length, the wasm's
//      address and the checksum of its data image (build.json `snapshot`)
// Out: {ok: true, buffer (transferred), times: {inflated, wasm, xored}} | {ok: false, message}
import { dataImage, imageChecksum, snapshotHeaderLength, xorImage } from "./snapshot-delta.js";

async function download(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${new URL(url).pathname}: HTTP ${response.status}`);
  return response;
}

self.onmessage = async ({ data: { url, bytes, wasmURL, checksum } }) => {
  try {
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
    const inflated = performance.timeOrigin + performance.now();
    const headerLength = snapshotHeaderLength(memory);
    if (headerLength === null) throw new Error("it is not a Pyodide memory snapshot");
    // Asked only now, long after the runtime asked: the browser makes this request wait for that
    // download and answers from its cache. Asked first, it would hold up the runtime's streaming compile.
    const wasm = new Uint8Array(await (await download(wasmURL)).arrayBuffer());
    const wasmArrived = performance.timeOrigin + performance.now();
    const image = dataImage(wasm);
    if (imageChecksum(image) !== checksum) {
      throw new Error("it was made against another pyodide.asm.wasm (its data section differs)");
    }
    xorImage(memory.subarray(headerLength), image);
    // When each step ended, on the common clock (performance.timeOrigin + now): for the bench and the console.
    const times = { inflated, wasm: wasmArrived, xored: performance.timeOrigin + performance.now() };
    self.postMessage({ ok: true, buffer: memory.buffer, times }, [memory.buffer]);
  } catch (error) {
    self.postMessage({ ok: false, message: String(error && error.message ? error.message : error) });
  }
};

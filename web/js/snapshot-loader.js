// A helper worker: downloads the gzip-compressed Pyodide memory snapshot and inflates
// it, on a thread of its own, while the boot worker starts Pyodide's runtime (issue 16).
// In:  {url, bytes}  the snapshot's address and its inflated length (build.json `snapshot`)
// Out: {ok: true, buffer} (transferred) | {ok: false, message}
self.onmessage = async ({ data: { url, bytes } }) => {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`could not load ${new URL(url).pathname}: HTTP ${response.status}`);
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
    self.postMessage({ ok: true, buffer: memory.buffer }, [memory.buffer]);
  } catch (error) {
    self.postMessage({ ok: false, message: String(error && error.message ? error.message : error) });
  }
};

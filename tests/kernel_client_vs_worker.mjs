// tests/test_kernel_client.py: the store's two clients, the worker's (worker-client.js) and the
// kernel's (notebook/kernel-client.js), given the same replies give the store the same things.
//
// The replies are the kernel's own (bpelab.widgets.kernel.answer, recorded by the Python test):
// a fake Worker posts them as the Pyodide worker would, a fake anywidget model sends them as
// the comm would. For each recorded request the script reports what each client handed back:
// the ready versions, every progress payload, then the result or the error's type and message.
//
// Usage: node tests/kernel_client_vs_worker.mjs CASES_JSON_FILE  (prints {worker: [...], kernel: [...]})
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { cases, versions } = JSON.parse(readFileSync(process.argv[2], "utf-8"));
const replies = new Map(cases.map((c, i) => [i + 1, c.replies]));  // both clients number requests from 1

globalThis.self = { location: new URL("http://127.0.0.1/") };  // worker-client.js reads the page's flags
globalThis.Worker = class {
  constructor() { queueMicrotask(() => this.onmessage({ data: { type: "ready", versions } })); }
  postMessage(message) {
    for (const reply of replies.get(message.id)) queueMicrotask(() => this.onmessage({ data: { ...reply, id: message.id } }));
  }
  terminate() {}
};

class FakeModel {
  constructor() { this.listeners = []; }
  on(name, f) { if (name === "msg:custom") this.listeners.push(f); }
  off(name, f) { this.listeners = this.listeners.filter((g) => g !== f); }
  deliver(message) { for (const f of this.listeners) f(message); }
  send(message) {
    if (message.type === "hello") { queueMicrotask(() => this.deliver({ type: "ready", versions })); return; }
    for (const reply of replies.get(message.id)) queueMicrotask(() => this.deliver({ ...reply, id: message.id }));
  }
}

const url = (name) => pathToFileURL(path.join(ROOT, "web", "js", name)).href;
const { WorkerClient } = await import(url("worker-client.js"));
const { KernelClient } = await import(url("notebook/kernel-client.js"));

async function drive(client) {
  const seen = [];
  const ready = await client.ready;
  seen.push({ ready });
  for (const c of cases) {
    const progress = [];
    try {
      const result = await client.request(c.type, c.payload, { onProgress: (p) => progress.push(p) });
      seen.push({ progress, result });
    } catch (error) {
      seen.push({ progress, error: { name: error.name, type: error.type, message: error.message } });
    }
  }
  seen.push({ busy: client.busy, methods: ["request", "cancel", "restart"].filter((m) => typeof client[m] === "function") });
  return seen;
}

const hooks = () => { const h = { readies: [] }; h.onReady = (v) => h.readies.push(v); return h; };
const workerHooks = hooks();
const kernelHooks = hooks();
const worker = new WorkerClient(new URL("http://127.0.0.1/worker.js"), workerHooks);
const kernel = new KernelClient(kernelHooks);
kernel.attach(new FakeModel());
const out = { worker: await drive(worker), kernel: await drive(kernel) };
out.worker.push({ onReady: workerHooks.readies });
out.kernel.push({ onReady: kernelHooks.readies });
process.stdout.write(JSON.stringify(out));

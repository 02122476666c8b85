// tests/test_wheel.py: install the bpelab wheel into the vendored Pyodide with micropip, offline,
// and encode texts with a reference tokenizer. Pyodide's npm package does not ship micropip, so
// its wheel (downloaded by setup.sh) is loaded with loadPackage from a local path; micropip then
// installs our wheel from Pyodide's own file system (an emfs: URL). Any network request fails.
//
// Usage: node tests/wheel_in_pyodide.mjs MICROPIP_WHEEL BPELAB_WHEEL TEXTS_JSON_FILE KEY
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { loadPyodide } = await import(path.join(ROOT, "node_modules", "pyodide", "pyodide.mjs"));
const [micropipWheel, wheel, textsFile, key] = process.argv.slice(2);

globalThis.fetch = async (url) => { throw new Error(`the test is offline: a request for ${url}`); };
const pyodide = await loadPyodide({ indexURL: path.join(ROOT, "node_modules", "pyodide") + path.sep, stdout: () => {}, stderr: () => {} });
await pyodide.loadPackage(micropipWheel, { messageCallback: () => {}, errorCallback: (m) => console.error(m) });
const name = path.basename(wheel);
pyodide.FS.writeFile(`/tmp/${name}`, readFileSync(wheel));
pyodide.FS.writeFile("/tmp/texts.json", readFileSync(textsFile));
await pyodide.runPythonAsync(`import micropip\nawait micropip.install("emfs:/tmp/${name}")`);
const out = pyodide.runPython(`
import json, bpelab, micropip
from bpelab.openai_vocab import load_reference
tok = load_reference(${JSON.stringify(key)})
texts = json.load(open("/tmp/texts.json", encoding="utf-8"))
json.dumps({"file": bpelab.__file__, "installed": {p.name: p.version for p in micropip.list().values()}.get("bpelab"),
            "ids": [tok.encode_ordinary(t) for t in texts]})`);
process.stdout.write(out);

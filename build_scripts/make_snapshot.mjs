// Make the Pyodide memory snapshot the site's worker boots from (issue 16).
//
// Usage: node build_scripts/make_snapshot.mjs PYODIDE_DIR BPELAB_ZIP OUT_GZ PACKAGE_SHA256
//   PYODIDE_DIR     the folder of Pyodide's core files (the site's dist/pyodide/: the very
//                   files the browser loads, so the snapshot's build id matches them)
//   BPELAB_ZIP      the package zip the site ships
//   OUT_GZ          where to write the gzip-compressed snapshot
//   PACKAGE_SHA256  the zip's sha256, stored inside the snapshot so the worker can check it
// Prints one JSON line: {pyodide, python, bpelab, modules, skipped, raw_bytes, gz_bytes, seconds}.
//
// The snapshot is Python's memory after unpacking bpelab and importing every module the
// worker may use, so nothing is imported at boot. It is not Emscripten's file system: the
// worker unpacks the zip again after loading it, for the files and any lazy import.
// Nothing from JavaScript may be held by Python at snapshot time (a JS object cannot be
// serialized), so configure() and everything site-specific run after loading, in the worker.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import path from "node:path";

const [pyodideDir, zipPath, outPath, packageSha256] = process.argv.slice(2);
if (!pyodideDir || !zipPath || !outPath || !packageSha256) {
  console.error("usage: node make_snapshot.mjs PYODIDE_DIR BPELAB_ZIP OUT_GZ PACKAGE_SHA256");
  process.exit(2);
}
const started = performance.now();
const indexURL = path.resolve(pyodideDir) + path.sep;
const { loadPyodide, version } = await import(pathToFileURL(path.join(indexURL, "pyodide.mjs")).href);

// The same options as worker.js, so the interpreter is set up the same way in both.
// What Pyodide 314 (src/js/pyodide.ts, snapshot code in pyodide.asm.mjs) needs to hold
// between making and loading: the same build of the runtime (a BUILD_ID inside the
// snapshot is checked against the loading pyodide.asm.*: "Snapshot build id mismatch"),
// so this uses the site's own copy of Pyodide; no JavaScript object held by Python (they
// would need a _snapshotDeserializer); no loaded packages (the lockfile is not involved).
// The file system is not kept, and stdout/stderr are set up anew by loadPyodide.
const pyodide = await loadPyodide({
  indexURL,
  packageBaseUrl: indexURL,
  fullStdLib: false,
  // In Node, sys.executable and $_ would be this script's path, baked into the snapshot;
  // this is what a browser has.
  _sysExecutable: "./this.program",
  _makeSnapshot: true,
  stdout: (line) => console.error("[py]", line),
  stderr: (line) => console.error("[py]", line),
});
// A Node Buffer is not a typed array Pyodide knows; a plain Uint8Array copy is.
pyodide.unpackArchive(new Uint8Array(readFileSync(zipPath)), "zip", { extractDir: "/home/pyodide/site" });
// Every bpelab module but the CPython-only ones (processes, the server, the command line).
// A module that fails to import here is left out and reported: it would fail in the worker too.
const summary = pyodide.runPython(`
import importlib, json, pkgutil, sys
if '/home/pyodide/site' not in sys.path:
    sys.path.insert(0, '/home/pyodide/site')
import bpelab, bpelab.worker_api
CPYTHON_ONLY = {'bpelab.__main__', 'bpelab.cli', 'bpelab.parallel', 'bpelab.serve'}
modules, skipped = [], {}
for info in sorted(pkgutil.walk_packages(bpelab.__path__, 'bpelab.'), key=lambda m: m.name):
    if info.name in CPYTHON_ONLY:
        continue
    try:
        importlib.import_module(info.name)
        modules.append(info.name)
    except Exception as error:
        skipped[info.name] = f'{type(error).__name__}: {error}'
# What the worker compares with build.json after loading: which package is inside.
import __main__
__main__._bpelab_snapshot = {'package_sha256': ${JSON.stringify(packageSha256)}, 'bpelab': bpelab.__version__}
json.dumps({'bpelab': bpelab.__version__, 'python': sys.version.split()[0], 'modules': modules, 'skipped': skipped})
`);
const info = JSON.parse(summary);
const snapshot = pyodide.makeMemorySnapshot();
// Level 6: level 9 took three times as long for 0.6% fewer bytes.
const gz = gzipSync(snapshot, { level: 6 });
writeFileSync(outPath, gz);
console.log(JSON.stringify({
  pyodide: version,
  ...info,
  raw_bytes: snapshot.length,
  gz_bytes: gz.length,
  seconds: Math.round(performance.now() - started) / 1000,
}));
process.exit(0);

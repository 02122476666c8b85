// Make the Pyodide memory snapshot the site's worker boots from (issues 16 and 23).
//
// Usage: node build_scripts/make_snapshot.mjs PYODIDE_DIR BPELAB_ZIP OUT_GZ OUT_STDLIB PACKAGE_SHA256
//   PYODIDE_DIR     the folder of Pyodide's core files (the site's dist/pyodide/: the very
//                   files the browser loads, so the snapshot's build id matches them)
//   BPELAB_ZIP      the package zip the site ships
//   OUT_GZ          where to write the snapshot (gzip-compressed, stored as a delta, below)
//   OUT_STDLIB      where to write the standard library zip the snapshot path ships (below)
//   PACKAGE_SHA256  the zip's sha256, stored inside the snapshot so the worker can check it
// Prints one JSON line: {pyodide, python, bpelab, modules, skipped, stdlib, stdlib_names,
// wasm_data_checksum, raw_bytes, zeroed_bytes, gz_bytes, seconds}.
//
// The snapshot is Python's memory after unpacking bpelab and importing every module the
// worker may use, so nothing is imported at boot. It is not Emscripten's file system: the
// worker unpacks the zip again after loading it, for the files and any lazy import.
// Nothing from JavaScript may be held by Python at snapshot time (a JS object cannot be
// serialized), so configure() and everything site-specific run after loading, in the worker.
//
// What makes it small (issue 23; 6.4 MB gzipped before, about 3.9 MB after):
// - A standard library of its own. The 195 modules Pyodide imports at start-up and the
//   bpelab modules' imports live in the snapshot, so the 2.5 MB python_stdlib.zip is not
//   needed to boot from it. OUT_STDLIB holds only the modules bpelab names in an import
//   statement that the snapshot lacks (with what they import at their top level); today
//   that is none. /lib/python314.zip is swapped for it before the snapshot is taken, so
//   the zip importer's table of contents inside the snapshot describes that small file,
//   which the worker installs in its place. A module imported later that is in neither
//   comes from the full python_stdlib.zip, fetched on first need (js/stdlib-fallback.js).
// - Free memory zeroed. Freed heap blocks (3.2 MB, mostly the compiler's scratch space)
//   and the stack below its pointer still hold old bytes, which compress as badly as live
//   data. They are overwritten with zeros before the snapshot is taken.
// - The wasm's data segments subtracted (js/snapshot-delta.js): the static data the wasm
//   starts with, nearly unchanged, is XOR-ed out; the worker XORs it back in.
import { readFileSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { dataImage, imageChecksum, snapshotHeaderLength, xorImage } from "../web/js/snapshot-delta.js";

const [pyodideDir, zipPath, outPath, stdlibOutPath, packageSha256] = process.argv.slice(2);
if (!pyodideDir || !zipPath || !outPath || !stdlibOutPath || !packageSha256) {
  console.error("usage: node make_snapshot.mjs PYODIDE_DIR BPELAB_ZIP OUT_GZ OUT_STDLIB PACKAGE_SHA256");
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

// The snapshot path's standard library: what bpelab may still import that the snapshot lacks.
const stdlib = JSON.parse(pyodide.runPython(`
import ast, io, json, sys, zipfile

ARCHIVE = next(p for p in sys.path if p.endswith('.zip'))  # /lib/python314.zip
full = zipfile.ZipFile(ARCHIVE)
files = {}  # module name -> its .py file in the archive
for name in full.namelist():
    if name.endswith('.py'):
        module = name[:-3].replace('/', '.').removesuffix('.__init__')
        files[module] = name

def named_modules(source, package, everywhere):
    """Modules named by the import statements of a module's source: all of them, or only those
    run at import (not inside functions, nor under if __name__ == '__main__')."""
    found = set()
    def visit(nodes):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and not everywhere:
                continue
            if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and not everywhere
                    and ast.unparse(node.test).replace('"', "'") == "__name__ == '__main__'"):
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ''
                if node.level:
                    parent = package.split('.')[: len(package.split('.')) - node.level + 1]
                    base = '.'.join(parent + ([base] if base else []))
                found.add(base)
                found.update(f'{base}.{alias.name}' for alias in node.names)  # kept when it is a module
            visit(ast.iter_child_nodes(node))
    visit(ast.parse(source).body)
    named = set()
    for name in found:
        parts = name.split('.')
        named.update('.'.join(parts[:k]) for k in range(1, len(parts) + 1))
    return named

wanted = set()
for name in ${JSON.stringify(info.modules)}:
    module = sys.modules[name]
    package = name if hasattr(module, '__path__') else name.rpartition('.')[0]
    wanted |= named_modules(open(module.__file__, 'rb').read(), package, everywhere=True)
kept, todo = set(), sorted(m for m in wanted if not m.startswith('bpelab'))
while todo:
    name = todo.pop()
    if name in kept or name in sys.modules or name not in files:
        continue  # held by the snapshot already, or built in, or not a module
    kept.add(name)
    package = name if files[name].endswith('__init__.py') else name.rpartition('.')[0]
    todo.extend(named_modules(full.read(files[name]), package, everywhere=False) - kept)

buffer = io.BytesIO()
with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as small:
    for name in sorted(files[m] for m in kept):
        entry = zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0))
        entry.compress_type = zipfile.ZIP_DEFLATED
        entry.external_attr = 0o644 << 16
        small.writestr(entry, full.read(name))
names = sorted({name.split('/')[0].removesuffix('.py') for name in full.namelist() if '/' in name or name.endswith('.py')})
full.close()
with open('/tmp/snapshot-stdlib.zip', 'wb') as out:
    out.write(buffer.getvalue())
json.dumps({'archive': ARCHIVE, 'modules': sorted(kept), 'names': names})
`));
const smallStdlib = pyodide.FS.readFile("/tmp/snapshot-stdlib.zip");
pyodide.FS.unlink("/tmp/snapshot-stdlib.zip");
pyodide.FS.writeFile(stdlib.archive, smallStdlib);
// The zip importer keeps the archive's table of contents; read it again, from the small file.
pyodide.runPython(`
import gc, sys
importer = sys.path_importer_cache[${JSON.stringify(stdlib.archive)}]
importer.invalidate_caches()
importer.find_spec('bpelab_snapshot_probe')  # reads the new table of contents
del importer
gc.collect()
`);

const zeroed = zeroFreeMemory(pyodide._module);
const snapshot = pyodide.makeMemorySnapshot();
const wasm = new Uint8Array(readFileSync(path.join(indexURL, "pyodide.asm.wasm")));
const image = dataImage(wasm);
const headerLength = snapshotHeaderLength(snapshot);
if (headerLength === null) throw new Error("makeMemorySnapshot() returned no Pyodide 314 snapshot: see SNAPSHOT_MAGIC");
xorImage(snapshot.subarray(headerLength), image);
// Level 6: level 9 took three times as long for under 1% fewer bytes.
const gz = gzipSync(snapshot, { level: 6 });
writeFileSync(outPath, gz);
writeFileSync(stdlibOutPath, smallStdlib);
console.log(JSON.stringify({
  pyodide: version,
  ...info,
  stdlib: stdlib.modules,
  stdlib_names: stdlib.names,
  wasm_data_checksum: imageChecksum(image),
  raw_bytes: snapshot.length,
  zeroed_bytes: zeroed,
  gz_bytes: gz.length,
  seconds: Math.round(performance.now() - started) / 1000,
}));
process.exit(0);

/**
 * Overwrite with zeros every free block of the C heap (Emscripten's dlmalloc) and the
 * stack below its pointer. Python is built without pymalloc here, so every freed object
 * is a free dlmalloc block. The blocks are taken with malloc until none is left, the
 * heap held from growing by dlmalloc's footprint limit, zeroed, and freed again.
 * Returns the number of heap bytes zeroed.
 */
function zeroFreeMemory(module) {
  const memoryLength = module.HEAPU8.length;
  const limitBefore = module._malloc_footprint_limit();
  module._malloc_set_footprint_limit(module._malloc_footprint());
  const blocks = [];
  for (let size = 1 << 22; size >= 8; size >>>= 1) {
    for (let block = module._malloc(size); block; block = module._malloc(size)) blocks.push(block);
  }
  let zeroed = 0;
  for (const block of blocks) {
    const length = module._malloc_usable_size(block);
    module.HEAPU8.fill(0, block, block + length);
    zeroed += length;
  }
  for (const block of blocks) module._free(block);
  module._malloc_set_footprint_limit(-1);  // dlmalloc's "no limit", as it was
  if (module._malloc_footprint_limit() !== limitBefore || module.HEAPU8.length !== memoryLength) {
    throw new Error("zeroing the free memory changed the heap's limit or size");
  }
  // No wasm frame is live while JavaScript runs here: all below the stack pointer is unused.
  module.HEAPU8.fill(0, module._emscripten_stack_get_end(), module._emscripten_stack_get_current());
  return zeroed;
}

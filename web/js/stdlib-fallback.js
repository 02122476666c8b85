// The snapshot path's safety net for Python's standard library (issue 23).
//
// Booted from the snapshot, Python holds in memory every module Pyodide and bpelab import,
// and Pyodide loads build.json's small `snapshot.stdlib_file` as the standard library
// instead of the 2.5 MB pyodide/python_stdlib.zip (make_snapshot.mjs says what it holds;
// often nothing). A module that is in neither (a codec looked up by name, a module some
// stdlib function imports only when called) would fail to import. So a finder placed last
// on sys.meta_path, asked only after every other finder said no, fetches the full
// python_stdlib.zip from this site once, synchronously (an import cannot wait; a worker may
// block), puts it on sys.path and finds the module there. Names that the full library does
// not have either (an optional `import _foo` in a try) are left to fail at once, unfetched.

const FULL_ARCHIVE = "/lib/python_stdlib_full.zip";

const FINDER = `
import importlib.machinery, json, sys

class StdlibFallback:
    """Finds a standard-library module the snapshot lacks in the full library, fetched on first need."""

    def __init__(self, fetch, names, archive, full):
        self.fetch, self.names, self.archive, self.full = fetch, frozenset(json.loads(names)), archive, full
        self.fetched = False

    def find_spec(self, name, path=None, target=None):
        if name.partition('.')[0] not in self.names:
            return None
        if path is not None:
            # A submodule of a package the snapshot holds: look in the same folder of the full zip.
            path = [entry.replace(self.archive, self.full, 1) for entry in path if entry.startswith(self.archive)]
            if not path:
                return None
        if not self.fetched:
            problem = self.fetch()
            if problem:
                raise ImportError(f"{name} is not in the snapshot's standard library, and {problem}", name=name)
            self.fetched = True
            sys.path.append(self.full)
        return importlib.machinery.PathFinder.find_spec(name, path, target)

def install(fetch, names, archive, full):
    sys.meta_path.append(StdlibFallback(fetch, names, archive, full))

install
`;

/**
 * Put the finder on Python's sys.meta_path. `url`: the full python_stdlib.zip; `names`: its
 * top-level module names (build.json `snapshot.stdlib_names`); `onFetch(url)` is told when it
 * is fetched, for the console.
 */
export function installStdlibFallback(pyodide, { url, names, onFetch }) {
  const archive = pyodide.runPython("import sys\nnext(p for p in sys.path if p.endswith('.zip'))");
  const fetchFull = () => {
    onFetch?.(url);
    const request = new XMLHttpRequest();
    request.open("GET", url, false);  // synchronous: allowed in a worker, and an import cannot wait
    request.responseType = "arraybuffer";
    try {
      request.send();
    } catch (error) {
      return `${new URL(url).pathname} could not be fetched (${error.message || error})`;
    }
    if (request.status !== 200) return `${new URL(url).pathname} could not be fetched: HTTP ${request.status}`;
    pyodide.FS.writeFile(FULL_ARCHIVE, new Uint8Array(request.response));
    return "";
  };
  const install = pyodide.runPython(FINDER);
  install(fetchFull, JSON.stringify(names || []), archive, FULL_ARCHIVE);
  install.destroy();
}

"""Serve the built site (a static folder) on a local address with the MIME types Pyodide needs.

Browsers refuse a module worker served as text/plain and compile wasm fastest
when it comes as application/wasm, and Python's table varies between systems,
so the types the site uses are fixed here. Nothing else: no CORS, no caching
headers beyond the defaults, no directory listings outside the folder.
"""

import functools
import http.server
import os
import threading

MIME_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".txt": "text/plain; charset=utf-8",
    ".tiktoken": "application/octet-stream",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    "": "application/octet-stream",
}


class SiteRequestHandler(http.server.SimpleHTTPRequestHandler):
    """SimpleHTTPRequestHandler with fixed MIME types and quiet logs."""

    extensions_map = MIME_TYPES

    def guess_type(self, path):
        _, ext = os.path.splitext(path)
        return MIME_TYPES.get(ext.lower(), "application/octet-stream")

    def log_request(self, code="-", size="-"):
        # Errors only: a page load is ~20 requests and would drown the URL.
        if int(code) >= 400 if str(code).isdigit() else True:
            super().log_request(code, size)


def make_server(directory, host="127.0.0.1", port=8000):
    """A ThreadingHTTPServer for `directory`; port 0 picks a free port.

    >>> server = make_server(".", port=0)
    >>> server.server_address[0]
    '127.0.0.1'
    >>> server.server_close()
    """
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise ValueError(f"cannot serve {directory!r}: not a folder; build the site first (npm run build)")
    handler = functools.partial(SiteRequestHandler, directory=directory)
    server = http.server.ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


def serve_in_thread(directory, host="127.0.0.1", port=0):
    """Start serving in a daemon thread; returns (server, base_url). Call server.shutdown() to stop.

    >>> server, url = serve_in_thread(".")
    >>> url.startswith("http://127.0.0.1:")
    True
    >>> server.shutdown(); server.server_close()
    """
    server = make_server(directory, host, port)
    thread = threading.Thread(target=server.serve_forever, name="bpelab-serve", daemon=True)
    thread.start()
    return server, f"http://{host}:{server.server_address[1]}/"


def serve(directory, host="127.0.0.1", port=8000):
    """Serve `directory` until Ctrl-C, printing the URL first.

    >>> callable(serve)
    True
    """
    server = make_server(directory, host, port)
    url = f"http://{host}:{server.server_address[1]}/"
    print(f"BPE Lab is served at {url}  (Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        server.server_close()

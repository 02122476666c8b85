"""Serve the built site (a static folder) on a local address with the MIME types Pyodide needs.

Browsers refuse a module worker served as text/plain and compile wasm fastest
when it comes as application/wasm, and Python's table varies between systems,
so the types the site uses are fixed here. Besides that:

- Caching (issue 16). Every file gets validators (ETag, Last-Modified) and
  answers 304 to If-None-Match / If-Modified-Since. A name that carries its
  content hash (`bpelab.<16+ hex>.zip`, the snapshot, the rank files; see
  build_site.py) is cached for a year as immutable: new content gets a new
  name. Everything else, index.html, embed.html, build.json, js/ and Pyodide's
  own files, is `no-cache`: reused, but revalidated on each load (a 304).
  Pyodide's files sit in pyodide/ without the version in the path (the worker
  imports ../pyodide/pyodide.mjs statically), so a long max-age there could
  serve an old runtime after an upgrade; revalidation costs one small 304 each.
- Hardening (issue 17). A path that does not decode as UTF-8, holds a NUL, a
  backslash or a `.`/`..` segment is answered 400; no directory is listed (a
  folder without index.html is 404); nothing outside the folder is served, not
  even through a symlink. Every response carries `X-Content-Type-Options:
  nosniff` and a Content-Security-Policy without `frame-ancestors` (the widget
  must be embeddable). An HTML page gets the policy of its own meta tag (none
  if it has none), so header and page cannot drift and a page with a wider
  policy, like demo/lesson.html that frames the widget from another origin, is
  not narrowed by the site's (two policies intersect). Everything else, the
  worker script above all (a worker obeys its own response's policy, not the
  page's), gets the site's policy: index.html's, read at start.
- Compression (issue 23). A client that accepts gzip gets the text types and
  the wasm gzipped, as GitHub Pages and Netlify send them; zips, the gzipped
  snapshot, images and other binaries go as they are (nothing is compressed
  twice). Such responses say `Vary: Accept-Encoding` and carry their own
  ETag (the file's, with `-gzip`) and the compressed length, HEAD included.
  Each file is compressed once, then kept in memory until it changes. There are
  no range requests to honour (none are answered).
"""

import email.utils
import functools
import gzip
import hashlib
import html.parser
import http
import http.server
import io
import os
import re
import threading
import urllib.parse

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
    # The worker gunzips the snapshot itself (DecompressionStream): it must arrive as the
    # bytes on disk, never with Content-Encoding: gzip, which the browser would undo first.
    ".gz": "application/octet-stream",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    "": "application/octet-stream",
}

# What a static host gzips (issue 23): text and the wasm, by media type. Not application/zip
# (already deflated inside), nor application/octet-stream (the snapshot is gzip already).
COMPRESSIBLE = frozenset({"text/html", "text/javascript", "text/css", "text/plain", "application/json",
                          "image/svg+xml", "application/wasm"})
GZIP_LEVEL = 6  # what hosts use on the fly; 9 saves under 1% on the wasm for twice the time

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
# A file name with a content hash: a dot, 16 to 64 lowercase hex digits, a dot (build_site.hashed_name).
HASHED_NAME = re.compile(r"\.[0-9a-f]{16,64}\.")


def cache_control(name):
    """The Cache-Control for a file name: immutable when it carries its content hash.

    >>> cache_control("snapshot.83a2d3c100b0efaa.bin.gz")
    'public, max-age=31536000, immutable'
    >>> cache_control("index.html"), cache_control("pyodide.asm.wasm")
    ('no-cache', 'no-cache')
    """
    return IMMUTABLE if HASHED_NAME.search(name) else REVALIDATE


def accepts_gzip(accept_encoding):
    """Whether a request's Accept-Encoding allows gzip (RFC 9110 12.5.3: q=0 refuses, * stands for the rest).

    >>> [accepts_gzip(h) for h in ("gzip, deflate, br, zstd", "br;q=1.0, gzip;q=0", "*", "identity", None)]
    [True, False, True, False, False]
    >>> accepts_gzip("*;q=0.5, gzip;q=0"), accepts_gzip("GZIP;Q=0.001"), accepts_gzip("x-gzip")
    (False, True, True)
    """
    weights = {}
    for item in (accept_encoding or "").split(","):
        coding, *params = [part.strip().lower() for part in item.split(";")]
        weight = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip() == "q":
                try:
                    weight = float(value)
                except ValueError:
                    weight = 0.0
        if coding:
            weights[coding] = weight
    for coding in ("gzip", "x-gzip", "*"):
        if coding in weights:
            return weights[coding] > 0
    return False


class GzipCache:
    """Files gzipped once and kept while they stay the same (size, mtime), up to `limit` bytes in all."""

    def __init__(self, limit=128 * 1024 * 1024):
        self.limit = limit
        self.entries = {}  # path -> ((size, mtime_ns), gzip bytes), oldest first
        self.lock = threading.Lock()

    def get(self, path, stat, file):
        """The gzip bytes of the open `file` at `path`, compressed now if not kept already."""
        key = (stat.st_size, stat.st_mtime_ns)
        with self.lock:
            kept = self.entries.get(path)
        if kept and kept[0] == key:
            return kept[1]
        # mtime=0: the same file always gives the same bytes, so its ETag can stay the same too.
        body = gzip.compress(file.read(), compresslevel=GZIP_LEVEL, mtime=0)
        with self.lock:
            self.entries.pop(path, None)
            self.entries[path] = (key, body)
            while sum(len(entry[1]) for entry in self.entries.values()) > self.limit and len(self.entries) > 1:
                del self.entries[next(iter(self.entries))]
        return body


class _MetaCSP(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.policy = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "content-security-policy":
            self.policy = self.policy or attrs.get("content")


def page_policy(index_html):
    """The Content-Security-Policy of a page's meta tag, without frame-ancestors; None if it has none.

    >>> page_policy('<meta http-equiv="Content-Security-Policy" content="default-src \\'self\\'; frame-ancestors \\'none\\'">')
    "default-src 'self'"
    >>> page_policy("<p>no policy</p>") is None
    True
    """
    parser = _MetaCSP()
    parser.feed(index_html)
    if not parser.policy:
        return None
    # A meta tag ignores frame-ancestors anyway; as a header it would stop the widget being embedded.
    directives = [d.strip() for d in parser.policy.split(";") if d.strip()]
    kept = [d for d in directives if d.split()[0].lower() != "frame-ancestors"]
    return "; ".join(kept) or None


class SiteRequestHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with fixed MIME types, cache validators, security headers and quiet logs."""

    extensions_map = MIME_TYPES
    policy = None  # the site's policy (index.html's), set per server by make_server
    page_policies = None  # {path: (mtime_ns, policy)} of the HTML pages served, set by make_server
    gzip_cache = None  # a GzipCache, set per server by make_server; None: nothing is compressed
    # Keep-alive: a page load is ~20 requests, and every response has a length.
    protocol_version = "HTTP/1.1"
    # An idle or half-sent connection is closed after this many seconds (socket timeout per read): 200 of
    # them must not hold 200 threads for ever. Set per server by make_server.
    timeout = 30

    def guess_type(self, path):
        _, ext = os.path.splitext(path)
        return MIME_TYPES.get(ext.lower(), "application/octet-stream")

    def log_request(self, code="-", size="-"):
        # Errors only: a page load is ~20 requests and would drown the URL.
        if int(code) >= 400 if str(code).isdigit() else True:
            super().log_request(code, size)

    def parse_request(self):
        # One handler serves every request of a keep-alive connection: start each from the site's policy.
        self._policy = self.policy
        if not super().parse_request():
            return False
        # A GET or HEAD with a body: its bytes would be read as the next request. Refuse it and close.
        length = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding") or (length is not None and length.strip() not in ("", "0")):
            self.send_error(http.HTTPStatus.BAD_REQUEST, f"a {self.command} request carries no body "
                            "(Content-Length or Transfer-Encoding given)")
            return False
        return True

    def send_error(self, code, message=None, explain=None):
        """One line of plain text ("400 Bad Request: malformed path"), not http.server's HTML page."""
        code = int(code)
        try:
            phrase, description = http.HTTPStatus(code).phrase, http.HTTPStatus(code).description
        except ValueError:
            phrase = description = "Error"  # a code http.HTTPStatus does not name
        self.log_error("code %d, message %s", code, message)
        self.send_response(code, phrase)
        # An error may leave a request body unread; a fresh connection keeps the next request clean.
        self.close_connection = True
        self.send_header("Connection", "close")
        body = f"{code} {phrase}: {message or description}\n".encode("utf-8", "replace")
        if code < 200 or code in (204, 205, 304):  # answers that carry no body
            self.end_headers()
            return
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def end_headers(self):
        # On every response, errors and 304s included.
        self.send_header("X-Content-Type-Options", "nosniff")
        policy = getattr(self, "_policy", self.policy)  # a request line too bad to parse has none yet
        if policy:
            self.send_header("Content-Security-Policy", policy)
        super().end_headers()

    def _page_policy(self, local, stat):
        """The policy of an HTML page's own meta tag, cached until the file changes."""
        cached = self.page_policies.get(local)
        if cached and cached[0] == stat.st_mtime_ns:
            return cached[1]
        with open(local, encoding="utf-8", errors="replace") as file:
            policy = page_policy(file.read())
        self.page_policies[local] = (stat.st_mtime_ns, policy)
        return policy

    def _local_path(self):
        """The file system path for the request, or (status, reason) when it must be refused."""
        raw = urllib.parse.urlsplit(self.path).path
        try:
            path = urllib.parse.unquote(raw, errors="strict")
        except UnicodeDecodeError:
            return http.HTTPStatus.BAD_REQUEST, "the path is not UTF-8"
        if not path.startswith("/") or "\0" in path or "\\" in path:
            return http.HTTPStatus.BAD_REQUEST, "malformed path"
        parts = path.split("/")[1:]
        if any(part in (".", "..") for part in parts):
            return http.HTTPStatus.BAD_REQUEST, "'.' and '..' are not allowed in a path"
        root = os.path.realpath(self.directory)
        local = os.path.join(root, *[part for part in parts if part])
        # A symlink may not lead out of the folder.
        real = os.path.realpath(local)
        if real != root and not real.startswith(root + os.sep):
            return http.HTTPStatus.NOT_FOUND, "file not found"
        return local, path

    def send_head(self):
        local, path = self._local_path()
        if isinstance(local, http.HTTPStatus):
            self.send_error(local, path)
            return None
        if os.path.isdir(local):
            index = os.path.join(local, "index.html")
            if not os.path.isfile(index):
                # No listings: a folder is served only through its index.html.
                self.send_error(http.HTTPStatus.NOT_FOUND, "file not found")
                return None
            if not path.endswith("/"):
                parts = urllib.parse.urlsplit(self.path)
                self.send_response(http.HTTPStatus.MOVED_PERMANENTLY)
                self.send_header("Location", urllib.parse.urlunsplit(("", "", parts.path + "/", parts.query, "")))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return None
            local = index
        try:
            file = open(local, "rb")
        except OSError:
            self.send_error(http.HTTPStatus.NOT_FOUND, "file not found")
            return None
        try:
            stat = os.fstat(file.fileno())
            if not os.path.isfile(local):
                raise OSError("not a regular file")
            if local.endswith(".html"):
                self._policy = self._page_policy(local, stat)
            content_type = self.guess_type(local)
            tag = hashlib.sha256(f"{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:20]
            compressible = self.gzip_cache is not None and content_type.split(";")[0] in COMPRESSIBLE
            # A file already gzipped (whatever its name says) is sent as it is.
            encode = compressible and accepts_gzip(self.headers.get("Accept-Encoding")) and file.read(2) != b"\x1f\x8b"
            file.seek(0)
            headers = {
                # Each encoding of a file is its own representation, with its own tag (RFC 9110 8.8.3).
                "ETag": f'"{tag}-gzip"' if encode else f'"{tag}"',
                "Last-Modified": self.date_time_string(int(stat.st_mtime)),
                "Cache-Control": cache_control(os.path.basename(local)),
            }
            if compressible:
                headers["Vary"] = "Accept-Encoding"
            if self._not_modified(headers["ETag"], stat.st_mtime):
                file.close()
                self.send_response(http.HTTPStatus.NOT_MODIFIED)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                return None
            length = stat.st_size
            if encode:
                body = self.gzip_cache.get(local, stat, file)
                file.close()
                file, length = io.BytesIO(body), len(body)
                headers["Content-Encoding"] = "gzip"
            self.send_response(http.HTTPStatus.OK)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(length))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            return file
        except Exception:
            file.close()
            raise

    def _not_modified(self, etag, mtime):
        """Whether the request's validators match: If-None-Match wins over If-Modified-Since (RFC 9110)."""
        match = self.headers.get("If-None-Match")
        if match is not None:
            tags = [tag.strip().removeprefix("W/") for tag in match.split(",")]
            return "*" in tags or etag in tags
        since = self.headers.get("If-Modified-Since")
        if since:
            try:
                when = email.utils.parsedate_to_datetime(since)
            except (TypeError, ValueError, IndexError, OverflowError):
                return False
            if when is None:
                return False
            return int(mtime) <= when.timestamp()
        return False


class SiteServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser that closes a connection mid-file is normal, not worth a traceback.
        import sys

        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


def make_server(directory, host="127.0.0.1", port=8000, handler_class=SiteRequestHandler, compress=True,
                idle_timeout=30):
    """A threading HTTP server for `directory`; port 0 picks a free port; compress=False sends every file as it is.

    >>> server = make_server(".", port=0)
    >>> server.server_address[0]
    '127.0.0.1'
    >>> server.server_close()
    """
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        raise ValueError(f"cannot serve {directory!r}: not a folder; build the site first (npm run build)")
    policy = None
    index = os.path.join(directory, "index.html")
    if os.path.isfile(index):
        with open(index, encoding="utf-8", errors="replace") as file:
            policy = page_policy(file.read())
    handler = type(handler_class.__name__, (handler_class,), {
        "policy": policy, "page_policies": {}, "gzip_cache": GzipCache() if compress else None,
        "timeout": idle_timeout})
    return SiteServer((host, port), functools.partial(handler, directory=directory))


def serve_in_thread(directory, host="127.0.0.1", port=0, compress=True, idle_timeout=30):
    """Start serving in a daemon thread; returns (server, base_url). Call server.shutdown() to stop.

    >>> server, url = serve_in_thread(".")
    >>> url.startswith("http://127.0.0.1:")
    True
    >>> server.shutdown(); server.server_close()
    """
    server = make_server(directory, host, port, compress=compress, idle_timeout=idle_timeout)
    thread = threading.Thread(target=server.serve_forever, name="bpelab-serve", daemon=True)
    thread.start()
    return server, f"http://{host}:{server.server_address[1]}/"


DEFAULT_PORT = 8000
PORTS_TRIED = 20  # without --port: 8000, else the next free one of 8001-8019, else any free port


def make_server_on_free_port(directory, host="127.0.0.1", first=DEFAULT_PORT):
    """(server, note): a server on `first` or, when it is taken, the next free port after it (any, at worst).

    >>> import socket
    >>> taken = socket.socket(); taken.bind(("127.0.0.1", 0)); taken.listen()
    >>> server, note = make_server_on_free_port(".", first=taken.getsockname()[1])
    >>> server.server_address[1] != taken.getsockname()[1], note.startswith("port ")
    (True, True)
    >>> server.server_close(); taken.close()
    """
    import errno

    for port in [*range(first, min(first + PORTS_TRIED, 65536)), 0]:
        try:
            server = make_server(directory, host, port)
        except OSError as error:
            if error.errno != errno.EADDRINUSE:
                raise
            continue
        taken = server.server_address[1]
        note = None if taken == first else f"port {first} is taken (another server?), so port {taken} is used"
        return server, note
    raise OSError(errno.EADDRINUSE, "no free port")


def serve(directory, host="127.0.0.1", port=8000):
    """Serve `directory` until Ctrl-C, printing the URL first (and the port taken when it is not the one asked).

    port=None: 8000, or the next free port when it is taken (what `npm start` does).

    >>> callable(serve)
    True
    """
    note = None
    if port is None:
        server, note = make_server_on_free_port(directory, host)
    else:
        server = make_server(directory, host, port)
    url = f"http://{host}:{server.server_address[1]}/"
    if note:
        print(note, flush=True)
    print(f"BPE Lab is served at {url}  (port {server.server_address[1]}; Ctrl-C stops)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("stopped", flush=True)
    finally:
        server.server_close()

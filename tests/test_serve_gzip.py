"""`bpelab serve` compresses what a static host would (issue 23).

A client that accepts gzip gets the text types and the wasm gzipped; zips, gzip files,
images and other binaries go as they are. Each encoding has its own ETag, Vary says the
answer depends on Accept-Encoding, Content-Length is the length sent, and HEAD says the
same as GET without the body.
"""

import gzip
import http.client
import os

import pytest

from bpelab import serve

TEXT = "const tokens = ['low', 'lower', 'newest'];\n" * 200  # compresses well
GZIPPED = gzip.compress(b"already compressed " * 100, mtime=0)

# path -> (bytes, Content-Type, compressed?)
FILES = {
    "/index.html": ("<!doctype html><title>t</title>" + TEXT, "text/html; charset=utf-8", True),
    "/js/app.js": (TEXT, "text/javascript; charset=utf-8", True),
    "/pyodide/pyodide.asm.mjs": (TEXT, "text/javascript; charset=utf-8", True),
    "/css/app.css": ("body { color: red; }\n" * 100, "text/css; charset=utf-8", True),
    "/build.json": ('{"files": [' + ", ".join(['"a"'] * 500) + "]}", "application/json", True),
    "/pyodide/pyodide.asm.wasm": (b"\0asm\1\0\0\0" + bytes(5000), "application/wasm", True),
    "/samples/a.txt": ("low lower newest\n" * 100, "text/plain; charset=utf-8", True),
    "/icon.svg": ("<svg xmlns='http://www.w3.org/2000/svg'>" + "<g/>" * 300 + "</svg>", "image/svg+xml", True),
    "/py/snapshot.0123456789abcdef.bin.gz": (GZIPPED, "application/octet-stream", False),
    "/pyodide/python_stdlib.zip": (b"PK\x05\x06" + bytes(18), "application/zip", False),
    "/ranks/gpt2.0123456789abcdef.tiktoken": (b"IQ== 0\n" * 300, "application/octet-stream", False),
    "/favicon.png": (b"\x89PNG\r\n\x1a\n" + bytes(300), "image/png", False),
    # A text type whose bytes are gzip already: never compressed twice.
    "/js/packed.js": (GZIPPED, "text/javascript; charset=utf-8", False),
}


def as_bytes(data):
    return data.encode() if isinstance(data, str) else data


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("gzip") / "dist"
    for path, (data, _type, _compressed) in FILES.items():
        (root / path.lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
        (root / path.lstrip("/")).write_bytes(as_bytes(data))
    return root


def start(root, compress=True):
    server = serve.make_server(root, port=0, compress=compress)
    import threading

    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def address(root):
    server = start(root)
    yield server.server_address
    server.shutdown()
    server.server_close()


def request(address, path, method="GET", accept="gzip, deflate, br, zstd", headers=None):
    """(status, headers, raw body): no decoding on the client side, and exactly the Accept-Encoding given."""
    connection = http.client.HTTPConnection(*address, timeout=30)
    connection.putrequest(method, path, skip_accept_encoding=True)
    if accept is not None:
        connection.putheader("Accept-Encoding", accept)
    for name, value in (headers or {}).items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


@pytest.mark.parametrize("path", FILES)
def test_a_client_that_accepts_gzip_gets_what_a_static_host_compresses(address, path):
    data, content_type, compressed = FILES[path]
    status, headers, body = request(address, path)
    assert status == 200 and headers["content-type"] == content_type
    assert int(headers["content-length"]) == len(body)
    if compressed:
        assert headers["content-encoding"] == "gzip"
        assert gzip.decompress(body) == as_bytes(data)
        assert len(body) < len(as_bytes(data))
        assert headers["vary"] == "Accept-Encoding"
        assert headers["etag"].endswith('-gzip"')
    else:
        assert "content-encoding" not in headers
        assert body == as_bytes(data)
        assert headers["etag"].endswith('"') and not headers["etag"].endswith('-gzip"')


@pytest.mark.parametrize("accept, gzipped", [
    (None, False),
    ("identity", False),
    ("gzip", True),
    ("GZip;q=0.5", True),
    ("x-gzip", True),
    ("*", True),
    ("gzip;q=0", False),
    ("br, zstd", False),
    ("*;q=0.1, gzip;q=0", False),
    ("deflate;q=1, gzip;q=0.001", True),
])
def test_accept_encoding_decides(address, accept, gzipped):
    status, headers, body = request(address, "/js/app.js", accept=accept)
    assert status == 200
    assert headers.get("content-encoding") == ("gzip" if gzipped else None)
    assert (gzip.decompress(body) if gzipped else body) == TEXT.encode()
    # Either way, a cache must keep the answers apart.
    assert headers["vary"] == "Accept-Encoding"


@pytest.mark.parametrize("path", ["/js/app.js", "/pyodide/pyodide.asm.wasm", "/py/snapshot.0123456789abcdef.bin.gz"])
def test_head_says_what_get_sends_without_the_body(address, path):
    _, get_headers, get_body = request(address, path)
    status, head_headers, head_body = request(address, path, method="HEAD")
    assert status == 200 and head_body == b""
    assert int(head_headers["content-length"]) == len(get_body)
    for name in ("content-type", "content-encoding", "vary", "etag", "cache-control"):
        assert head_headers.get(name) == get_headers.get(name), name


def test_each_encoding_has_its_own_etag_and_revalidates_to_304(address):
    _, plain, _ = request(address, "/build.json", accept=None)
    _, packed, _ = request(address, "/build.json")
    assert plain["etag"] != packed["etag"]
    status, again, body = request(address, "/build.json", headers={"If-None-Match": packed["etag"]})
    assert (status, body) == (304, b"")
    assert again["etag"] == packed["etag"] and again["vary"] == "Accept-Encoding"
    assert request(address, "/build.json", accept=None, headers={"If-None-Match": plain["etag"]})[0] == 304
    # A client holding the plain copy that now accepts gzip gets the gzip one: its tag is another.
    status, headers, body = request(address, "/build.json", headers={"If-None-Match": plain["etag"]})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(body) == as_bytes(FILES["/build.json"][0])


def test_the_same_file_gives_the_same_gzip_bytes_and_a_changed_one_new_bytes(address, root):
    path = root / "samples" / "changing.txt"
    path.write_text("first version\n" * 50)
    first = request(address, "/samples/changing.txt")
    assert request(address, "/samples/changing.txt")[2] == first[2]
    path.write_text("second version, longer\n" * 50)
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10_000_000))
    status, headers, body = request(address, "/samples/changing.txt")
    assert status == 200 and gzip.decompress(body) == b"second version, longer\n" * 50
    assert headers["etag"] != first[1]["etag"]


def test_compress_false_sends_every_file_as_it_is(root):
    server = start(root, compress=False)
    try:
        for path, (data, _type, _compressed) in FILES.items():
            status, headers, body = request(server.server_address, path)
            assert status == 200 and "content-encoding" not in headers and "vary" not in headers
            assert body == as_bytes(data)
    finally:
        server.shutdown()
        server.server_close()


def test_the_cache_keeps_no_more_than_its_limit():
    cache = serve.GzipCache(limit=3000)
    import io

    class Stat:
        def __init__(self, size):
            self.st_size, self.st_mtime_ns = size, 1

    for index in range(10):
        data = os.urandom(1000)  # incompressible: each entry about 1 KB
        assert gzip.decompress(cache.get(f"/f{index}", Stat(len(data)), io.BytesIO(data))) == data
    assert sum(len(body) for _key, body in cache.entries.values()) <= 3000
    assert list(cache.entries)[-1] == "/f9"

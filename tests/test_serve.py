"""`bpelab serve`: cache validators and headers (issue 16), hardening and security headers (issue 17).

The server runs in a thread on a free port over a small folder made here; its
log goes to a captured stderr so each test can show that no traceback was printed.
"""

import http.client
import io
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from bpelab import serve

POLICY = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'"
INDEX = (f'<!doctype html><html><head><meta http-equiv="Content-Security-Policy" '
         f'content="{POLICY}; frame-ancestors \'none\'"></head><body>hi</body></html>')
HASHED = "py/bpelab.0123456789abcdef.zip"
ROOT = Path(__file__).resolve().parent.parent
# A course page that frames the widget from another origin: a wider policy than the site's.
DEMO_POLICY = "default-src 'self'; frame-src 'self' http: https:"


@pytest.fixture(scope="module")
def site_root(tmp_path_factory):
    return tmp_path_factory.mktemp("serve")


@pytest.fixture(scope="module")
def site(site_root):
    """(host, port, log) of a server over a folder with a page, a hashed file, folders and a symlink out."""
    tmp_path = site_root
    root = tmp_path / "dist"
    (root / "js").mkdir(parents=True)
    (root / "js" / "app.js").write_text("export {};\n")
    (root / "py").mkdir()
    (root / HASHED).write_bytes(b"PK\x05\x06" + bytes(18))
    (root / "lesson").mkdir()
    (root / "lesson" / "index.html").write_text("<p>lesson</p>")
    (root / "demo.html").write_text(f'<meta http-equiv="Content-Security-Policy" content="{DEMO_POLICY}">')
    (root / "build.json").write_text("{}\n")
    (root / "index.html").write_text(INDEX)
    (tmp_path / "secret.txt").write_text("outside")
    (root / "leak.txt").symlink_to(tmp_path / "secret.txt")
    log = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "stderr", log)  # the server's log: no test may find a traceback in it
        server, url = serve.serve_in_thread(root)
        try:
            yield server.server_address[0], server.server_address[1], log
        finally:
            server.shutdown()
            server.server_close()


def get(site, path, method="GET", headers=None):
    host, port, _ = site
    connection = http.client.HTTPConnection(host, port, timeout=10)
    connection.putrequest(method, path)
    for name, value in (headers or {}).items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def raw(site, request_bytes):
    """Send bytes as they are (no client-side quoting) and return the status line."""
    host, port, _ = site
    with socket.create_connection((host, port), timeout=10) as sock:
        sock.sendall(request_bytes)
        data = b""
        while b"\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n", 1)[0].decode("latin-1")


def test_page_gets_validators_no_cache_and_the_pages_own_policy(site):
    status, headers, body = get(site, "/")
    assert status == 200 and body == INDEX.encode()
    assert headers["cache-control"] == "no-cache"
    assert headers["etag"].startswith('"') and headers["last-modified"].endswith("GMT")
    assert headers["x-content-type-options"] == "nosniff"
    # The meta tag's policy, minus frame-ancestors: the widget must be embeddable.
    assert headers["content-security-policy"] == POLICY
    assert "x-frame-options" not in headers
    assert headers["content-type"] == "text/html; charset=utf-8"


@pytest.mark.parametrize("path", ["/build.json", "/js/app.js", "/index.html"])
def test_unhashed_names_are_revalidated(site, path):
    status, headers, _ = get(site, path)
    assert status == 200 and headers["cache-control"] == "no-cache"


def test_a_content_hashed_name_is_immutable(site):
    status, headers, _ = get(site, "/" + HASHED)
    assert status == 200
    assert headers["cache-control"] == "public, max-age=31536000, immutable"
    assert headers["content-type"] == "application/zip"


def test_if_none_match_and_if_modified_since_answer_304(site):
    _, headers, _ = get(site, "/build.json")
    etag, modified = headers["etag"], headers["last-modified"]
    status, again, body = get(site, "/build.json", headers={"If-None-Match": etag})
    assert (status, body) == (304, b"")
    assert again["etag"] == etag and again["cache-control"] == "no-cache"
    assert again["x-content-type-options"] == "nosniff"
    assert get(site, "/build.json", headers={"If-None-Match": f'"other", W/{etag}'})[0] == 304
    assert get(site, "/build.json", headers={"If-Modified-Since": modified})[0] == 304
    # If-None-Match wins over If-Modified-Since (RFC 9110): a stale tag means the full file.
    assert get(site, "/build.json", headers={"If-None-Match": '"stale"', "If-Modified-Since": modified})[0] == 200
    assert get(site, "/build.json", headers={"If-Modified-Since": "Thu, 01 Jan 1970 00:00:00 GMT"})[0] == 200
    assert get(site, "/build.json", headers={"If-Modified-Since": "not a date"})[0] == 200


def test_a_changed_file_gets_a_new_etag(site, site_root):
    _, before, _ = get(site, "/build.json")
    path = site_root / "dist" / "build.json"
    path.write_text('{"changed": true}\n')
    os.utime(path, (time.time() + 5, time.time() + 5))
    status, after, body = get(site, "/build.json", headers={"If-None-Match": before["etag"]})
    assert status == 200 and body == b'{"changed": true}\n'
    assert after["etag"] != before["etag"]


@pytest.mark.parametrize("path", [
    "/%00", "/index.html%00.js", "/js/%00/app.js",  # NUL: used to print a traceback and drop the connection
    "/%ff", "/%c3%28",                                # not UTF-8
    "/../secret.txt", "/js/../index.html", "/..%2fsecret.txt", "/%2e%2e/secret.txt", "/./index.html",
    "/js%5capp.js",                                   # a backslash
    "*", "index.html",                                # not an absolute path
])
def test_malformed_paths_are_400_without_a_traceback(site, path):
    status = raw(site, f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert status.startswith("HTTP/1.1 400 "), status
    # The server still answers the next request.
    assert get(site, "/")[0] == 200
    assert "Traceback" not in site[2].getvalue()


@pytest.mark.parametrize("path", ["/js/", "/py/", "/js", "/py"])
def test_folders_without_an_index_are_404_not_listed(site, path):
    status, headers, body = get(site, path)
    assert status == 404
    assert b"app.js" not in body and b"bpelab." not in body
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["content-security-policy"] == POLICY


def test_a_folder_with_an_index_is_served_through_it(site):
    status, headers, _ = get(site, "/lesson")
    assert status == 301 and headers["location"] == "/lesson/"
    status, _, body = get(site, "/lesson/")
    assert (status, body) == (200, b"<p>lesson</p>")


def test_each_page_gets_its_own_meta_policy_and_other_files_the_sites(site):
    # Two policies intersect: the site's default-src 'self' would block the demo's frames.
    assert get(site, "/demo.html")[1]["content-security-policy"] == DEMO_POLICY
    # A page without a meta policy gets none; a worker script or data file gets the site's.
    assert "content-security-policy" not in get(site, "/lesson/")[1]
    assert get(site, "/js/app.js")[1]["content-security-policy"] == POLICY
    assert get(site, "/" + HASHED)[1]["content-security-policy"] == POLICY
    _, headers, _ = get(site, "/demo.html")
    assert get(site, "/demo.html", headers={"If-None-Match": headers["etag"]})[1]["content-security-policy"] == DEMO_POLICY


def test_a_keep_alive_connection_does_not_carry_a_pages_policy_over(site):
    host, port, _ = site
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        policies = []
        for path in ("/demo.html", "/js/app.js", "/nope.js"):
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            policies.append(response.getheader("Content-Security-Policy"))
    finally:
        connection.close()
    assert policies == [DEMO_POLICY, POLICY, POLICY]


def test_a_symlink_out_of_the_folder_is_not_followed(site):
    status, _, body = get(site, "/leak.txt")
    assert status == 404 and b"outside" not in body


def test_head_and_missing_files(site):
    status, headers, body = get(site, "/" + HASHED, method="HEAD")
    assert status == 200 and body == b"" and headers["content-length"] == "22"
    status, headers, _ = get(site, "/nope.js")
    assert status == 404 and headers["x-content-type-options"] == "nosniff"
    assert "Traceback" not in site[2].getvalue()


def test_the_header_policy_is_the_sites_meta_policy():
    """The real page: the header is read from it, so they cannot drift; it never has frame-ancestors."""
    index = (ROOT / "web" / "index.html").read_text("utf-8")
    policy = serve.page_policy(index)
    assert policy and "'wasm-unsafe-eval'" in policy
    assert "frame-ancestors" not in policy
    assert policy.replace(" ", "") in index.replace(" ", "")


def test_serving_a_missing_folder_says_to_build_first(tmp_path):
    with pytest.raises(ValueError, match="build the site first"):
        serve.make_server(tmp_path / "nope", port=0)


def test_a_folder_without_a_page_gets_no_policy_but_nosniff(tmp_path):
    (tmp_path / "a.txt").write_text("a")
    server, url = serve.serve_in_thread(tmp_path)
    try:
        host, port = server.server_address
        status, headers, _ = get((host, port, None), "/a.txt")
    finally:
        server.shutdown()
        server.server_close()
    assert status == 200 and headers["x-content-type-options"] == "nosniff"
    assert "content-security-policy" not in headers

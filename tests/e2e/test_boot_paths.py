"""The worker's two boot paths (issue 16) and its restart after a fatal Pyodide error (issue 17).

- snapshot: Python's memory as build_site.py saved it (build.json `snapshot`), the default;
- fallback: a normal loadPyodide(), taken with a reason when the build has no snapshot, when it was
  made by another Pyodide or for another package, when it fails to load, or on ?boot=fallback.

Most tests drive a WorkerClient of their own on a bare page of the site (a 404 page: same origin,
same CSP, no app), so they test the worker, not the UI; build.json and the snapshot are rewritten
per test with Playwright routes. Both paths must give the same merges, ids and file bytes as CPython.
"""

import base64
import gzip
import hashlib
import json

import pytest
from playwright.sync_api import expect

from bpelab import worker_api
from site_harness import BOOT_TIMEOUT_MS, ROOT

RANKS = ROOT / "py" / "bpelab" / "data" / "ranks"  # what build_site.py ships as ranks/

TEXT = (
    "The quick brown fox jumps over the lazy dog.<|endoftext|>Über naïve café: 12345 and 678.\n"
    "Съешь же ещё этих мягких французских булок, да выпей чаю.\n\n"
    "敏捷的棕色狐狸跳过了懒狗。 🙂🙂  tabs\tand   spaces\n"
) * 6
SETTINGS = {"num_merges": 60, "pretokenizer": "gpt2", "tie_break": "greater", "special_tokens": ["<|endoftext|>"]}
PROBE = "Hello world! Über 12345 🙂 <|endoftext|> 敏捷"

# Boots a WorkerClient on the bare page; resolves with what the UI would see.
BOOT_JS = """async () => {
  const { WorkerClient } = await import("/js/worker-client.js");
  const log = { boots: [], crashes: [] };
  const client = new WorkerClient(new URL("/js/worker.js", location.href), {
    onBoot: (message) => log.boots.push(message),
    onCrash: (message) => log.crashes.push(message),
  });
  window.testClient = client;
  window.testLog = log;
  const versions = await client.ready;
  return { versions, boots: log.boots };
}"""

# Train, export, encode (the trained tokenizer and GPT-2's): everything that must not depend on the boot path.
WORK_JS = """async ([documents, settings, probe]) => {
  const client = window.testClient;
  const info = await client.request("train", { documents, settings, report: false });
  const exported = await client.request("export", { handle: info.handle, id_layout: "seed" });
  const gpt2 = await client.request("reference", { name: "gpt2" });
  const encoded = await client.request("encode", { text: probe, handles: [info.handle, gpt2.handle], allowed_special: "all" });
  return { merges: info.merges, files: exported.files.map((f) => [f.name, f.sha256, f.base64]),
           ids: encoded.results.map((r) => r.ids) };
}"""


def cpython_work():
    """The same requests through worker_api in this CPython process."""
    def call(kind, payload):
        reply = json.loads(worker_api.handle(kind, json.dumps(payload)))
        assert reply["ok"], reply
        return reply["result"]

    info = call("train", {"documents": [TEXT], "settings": SETTINGS, "report": False})
    exported = call("export", {"handle": info["handle"], "id_layout": "seed"})
    gpt2 = call("reference", {"name": "gpt2", "path": str(RANKS / "gpt2.tiktoken")})
    encoded = call("encode", {"text": PROBE, "handles": [info["handle"], gpt2["handle"]], "allowed_special": "all"})
    return {"merges": info["merges"], "files": [[f["name"], f["sha256"], f["base64"]] for f in exported["files"]],
            "ids": [r["ids"] for r in encoded["results"]]}


@pytest.fixture
def bare(browser, site_url):
    """(page, requests) on a bare same-origin page; every request is recorded, none leaves the origin."""
    context = browser.new_context()
    page = context.new_page()
    requests, outside, console = [], [], []
    origin = site_url.rstrip("/")

    def route(route_):
        url = route_.request.url
        requests.append(url)
        if url.startswith(origin + "/"):
            route_.fallback()
        else:
            outside.append(url)
            route_.abort()

    context.route("**/*", route)
    page.on("console", lambda message: console.append(f"{message.type}: {message.text}"))
    yield page, requests
    context.close()
    assert outside == []


@pytest.fixture(scope="module")
def build_info(site_dir):
    return json.loads((site_dir / "build.json").read_text("utf-8"))


def boot(page, site_url, query=""):
    page.goto(site_url + "boot-test" + query)  # a 404 page: the site's origin and policy, no app
    return page.evaluate(BOOT_JS)


def rewrite_build(page, build_info, change):
    """Serve build.json changed by `change(info)` (in place)."""
    info = json.loads(json.dumps(build_info))
    change(info)
    page.route("**/build.json", lambda route: route.fulfill(status=200, content_type="application/json",
                                                             body=json.dumps(info)))


def fetched(requests, build_info, key):
    name = build_info["snapshot"]["file"] if key == "snapshot" else build_info["package_file"]
    return any(url.split("?")[0].endswith("/" + name) for url in requests)


def test_the_build_records_the_snapshot(build_info, site_dir):
    snapshot = build_info["snapshot"]
    assert snapshot["pyodide"] == build_info["pyodide"]
    assert snapshot["bpelab"] == build_info["bpelab"]
    assert snapshot["package_sha256"] == build_info["package_sha256"]
    assert "bpelab.worker_api" in snapshot["modules"] and "bpelab.openai_vocab" in snapshot["modules"]
    # Content-hashed names: the file's own sha256 begins the name.
    data = (site_dir / snapshot["file"]).read_bytes()
    assert snapshot["file"] == f"py/snapshot.{hashlib.sha256(data).hexdigest()[:16]}.bin.gz"
    assert len(gzip.decompress(data)) == snapshot["bytes"]
    package = (site_dir / build_info["package_file"]).read_bytes()
    assert hashlib.sha256(package).hexdigest() == build_info["package_sha256"]
    for name, path in build_info["rank_files"].items():
        assert name in build_info["ranks"]
        assert hashlib.sha256((site_dir / path).read_bytes()).hexdigest()[:16] in path


@pytest.fixture(scope="module")
def snapshot_run(browser, site_url):
    """The default boot on a bare page, and WORK_JS's results on it."""
    context = browser.new_context()
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request.url))
    booted = boot(page, site_url)
    work = page.evaluate(WORK_JS, [[TEXT], SETTINGS, PROBE])
    context.close()
    return booted, work, requests


def test_snapshot_boot_is_the_default_and_gives_cpythons_results(snapshot_run, build_info):
    booted, work, requests = snapshot_run
    versions = booted["versions"]
    assert versions["boot"] == "snapshot" and "boot_reason" not in versions
    assert [m["stage"] for m in booted["boots"]] == ["config", "runtime", "package", "import"]
    assert [m.get("boot") for m in booted["boots"]] == [None, "snapshot", "snapshot", "snapshot"]
    assert versions["pyodide"] == build_info["pyodide"] and versions["bpelab"] == build_info["bpelab"]
    assert fetched(requests, build_info, "snapshot") and fetched(requests, build_info, "package")
    assert work == cpython_work()  # merges, file bytes and ids, trained and GPT-2's


def test_fallback_boot_on_request_gives_the_same_results(bare, site_url, build_info, snapshot_run):
    page, requests = bare
    booted = boot(page, site_url, "?boot=fallback")
    versions = booted["versions"]
    assert versions["boot"] == "fallback"
    assert versions["boot_reason"] == "the page asked for it (?boot=fallback)"
    runtime = [m for m in booted["boots"] if m["stage"] == "runtime"]
    assert runtime == [{"type": "boot", "stage": "runtime", "step": 2, "steps": 4, "boot": "fallback",
                        "reason": "the page asked for it (?boot=fallback)"}]
    assert not fetched(requests, build_info, "snapshot")
    work = page.evaluate(WORK_JS, [[TEXT], SETTINGS, PROBE])
    # Merges, file bytes, ids of the trained tokenizer and of GPT-2's: as in CPython and on the snapshot path.
    assert work == cpython_work()
    assert work == snapshot_run[1]


def snapshot_for_another_package(info):
    info["snapshot"]["package_sha256"] = "0" * 64


def snapshot_from_another_pyodide(info):
    info["snapshot"]["pyodide"] = "0.0.1"


def no_snapshot(info):
    info["snapshot"] = None


def snapshot_in_the_old_format(info):
    """As issue 16's builds stored it: the whole memory gzipped, with Pyodide's full standard library."""
    del info["snapshot"]["format"], info["snapshot"]["stdlib_file"]


@pytest.mark.parametrize("change, reason", [
    (snapshot_for_another_package, "the snapshot holds bpelab 0.1.0 (package 000000000000), but this build ships"),
    (snapshot_from_another_pyodide, "the snapshot was made by Pyodide 0.0.1, but Pyodide 314.0.7 is running"),
    (no_snapshot, "this build has no snapshot"),
    (snapshot_in_the_old_format, 'the snapshot is stored as "gzip", which this worker does not read'),
], ids=["another-package", "another-pyodide", "none", "old-format"])
def test_a_snapshot_that_does_not_match_the_build_is_not_even_fetched(bare, site_url, build_info, change, reason):
    page, requests = bare
    rewrite_build(page, build_info, change)
    versions = boot(page, site_url)["versions"]
    assert versions["boot"] == "fallback"
    assert versions["boot_reason"].startswith(reason.replace("0.1.0", build_info["bpelab"]).replace(
        "314.0.7", build_info["pyodide"]))
    assert not fetched(requests, build_info, "snapshot")
    info = page.evaluate("() => testClient.request('train', {documents: ['low lower lowest'], settings: {num_merges: 3}})")
    assert len(info["merges"]) == 3


def test_a_missing_snapshot_falls_back(bare, site_url, build_info):
    page, _ = bare
    page.route("**/py/snapshot.*", lambda route: route.fulfill(status=404, body="gone"))
    versions = boot(page, site_url)["versions"]
    assert versions["boot"] == "fallback"
    assert versions["boot_reason"] == (f"the snapshot did not load: could not load /{build_info['snapshot']['file']}: "
                                       "HTTP 404")
    assert page.evaluate("() => testClient.request('ping', {echo: 7})") == {"pong": 7}


def broken_snapshots(site_dir, build_info):
    real = (site_dir / build_info["snapshot"]["file"]).read_bytes()
    size = build_info["snapshot"]["bytes"]
    return {
        "not-gzip": (b"not gzip at all", "the snapshot did not load: "),
        "truncated": (real[: len(real) // 2], "the snapshot did not load: "),
        "wrong-size": (gzip.compress(b"\0" * 4096), f"the snapshot did not load: it has 4096 bytes, not the {size}"),
        "too-long": (gzip.compress(b"\0" * (size + 1)), f"the snapshot did not load: it has more than the {size} bytes"),
        "not-a-snapshot": (gzip.compress(b"\0" * size), "the snapshot did not load: it is not a Pyodide memory snapshot"),
    }


@pytest.mark.parametrize("case", ["not-gzip", "truncated", "wrong-size", "too-long", "not-a-snapshot"])
def test_a_broken_snapshot_falls_back(bare, site_url, site_dir, build_info, case):
    page, _ = bare
    body, reason = broken_snapshots(site_dir, build_info)[case]
    page.route("**/py/snapshot.*", lambda route: route.fulfill(status=200, body=body,
                                                                 content_type="application/octet-stream"))
    booted = boot(page, site_url)
    versions = booted["versions"]
    assert versions["boot"] == "fallback"
    assert versions["boot_reason"].startswith(reason)
    # The runtime stage is shown twice: the snapshot try, then the normal start.
    assert [m.get("boot") for m in booted["boots"] if m["stage"] == "runtime"] == ["snapshot", "fallback"]
    info = page.evaluate("() => testClient.request('train', {documents: ['low lower lowest'], settings: {num_merges: 3}})")
    assert len(info["merges"]) == 3


def test_a_snapshot_whose_contents_are_another_package_falls_back(bare, site_url, build_info):
    """build.json's claims agree with each other, but the snapshot itself holds the real package's sha."""
    page, requests = bare

    def lie(info):
        info["package_sha256"] = info["snapshot"]["package_sha256"] = "f" * 64

    rewrite_build(page, build_info, lie)
    versions = boot(page, site_url)["versions"]
    assert fetched(requests, build_info, "snapshot")
    assert versions["boot"] == "fallback"
    assert versions["boot_reason"] == (f"the snapshot did not load: it holds package {build_info['package_sha256'][:12]}, "
                                       "not this build's ffffffffffff")
    assert page.evaluate("() => testClient.request('reference', {name: 'gpt2'})")["handle"]


def test_a_snapshot_made_against_another_wasm_falls_back(bare, site_url, build_info):
    """The snapshot is stored XOR-ed with pyodide.asm.wasm's data segments: with other segments it would be garbage."""
    page, requests = bare

    def other_wasm(info):
        info["snapshot"]["wasm_data_checksum"] = "0badf00d"

    rewrite_build(page, build_info, other_wasm)
    booted = boot(page, site_url)
    versions = booted["versions"]
    assert fetched(requests, build_info, "snapshot")
    assert versions["boot"] == "fallback"
    assert versions["boot_reason"] == ("the snapshot did not load: it was made against another pyodide.asm.wasm "
                                       "(its data section differs)")
    assert [m.get("boot") for m in booted["boots"] if m["stage"] == "runtime"] == ["snapshot", "fallback"]
    assert page.evaluate("() => testClient.request('ping', {echo: 3})") == {"pong": 3}


def test_a_fatal_pyodide_error_restarts_the_worker_and_the_next_requests_work(bare, site_url):
    page, _ = bare
    assert boot(page, site_url, "?debug=fatal")["versions"]["boot"] == "snapshot"
    before = page.evaluate("() => testClient.request('train', {documents: ['low lower lowest'], settings: {num_merges: 2}})")
    error = page.evaluate("""async () => {
      try { await testClient.request("_debug_fatal", {}); return null; }
      catch (error) { return { type: error.type, message: error.message }; }
    }""")
    assert error["type"] == "PyodideFatalError"
    assert error["message"].startswith("Python stopped after a fatal error in Pyodide (")
    # The client noticed, told the UI once and started a fresh worker by itself.
    page.wait_for_function("() => testClient.crashes > 0")  # the fatal message follows the error reply
    assert page.evaluate("() => testLog.crashes") == [error["message"]]
    assert page.evaluate("() => testClient.crashes") == 1
    versions = page.evaluate("() => testClient.ready")
    assert versions["boot"] == "snapshot"
    after = page.evaluate("""async () => {
      const info = await testClient.request("train", {documents: ["low lower lowest"], settings: {num_merges: 2}});
      const gpt2 = await testClient.request("reference", {name: "gpt2"});
      const encoded = await testClient.request("encode", {text: "hello world", handles: [gpt2.handle]});
      return { merges: info.merges, ids: encoded.results[0].ids };
    }""")
    assert after["merges"] == before["merges"]
    assert after["ids"] == [31373, 995]


def test_a_reply_garbled_above_2_gb_restarts_the_worker_instead_of_being_shown(bare, site_url):
    """Issue 25: 'Training failed: Unexpected token ... is not valid JSON'. Pyodide 314 misreads a long ASCII
    string that Python holds above 2 GB of wasm memory; the worker must not pass such a reply on as an answer
    or a JSON error, but restart Python and say why."""
    page, _ = bare
    boot(page, site_url, "?debug=fatal")
    error = page.evaluate("""async () => {
      try { await testClient.request("_debug_high_memory", {echo: "x".repeat(8000000)}); return null; }
      catch (error) { return { type: error.type, message: error.message }; }
    }""")
    assert error["type"] == "PyodideFatalError", error
    assert "Python's reply came back garbled (the worker held " in error["message"]
    assert "MB), a Pyodide fault with memory over 2 GB; Python was restarted" in error["message"]
    page.wait_for_function("() => testClient.crashes > 0")
    assert page.evaluate("() => testClient.crashes") == 1
    page.evaluate("() => testClient.ready")
    assert page.evaluate("() => testClient.request('ping', {echo: 'x'.repeat(100)})") == {"pong": "x" * 100}


def test_the_debug_request_needs_the_flag(bare, site_url):
    page, _ = bare
    boot(page, site_url)
    error = page.evaluate("""async () => {
      try { await testClient.request("_debug_fatal", {}); return null; } catch (error) { return error.message; }
    }""")
    assert error == "_debug_fatal needs the page opened with ?debug=fatal"
    assert page.evaluate("() => testClient.crashes") == 0


def test_the_app_says_which_path_it_took(bare, site_url, build_info):
    """The status line: the snapshot path, then a fallback with its reason."""
    page, _ = bare
    page.goto(site_url)
    expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
    expect(page.locator("#status")).to_contain_text("snapshot")
    assert page.evaluate("() => bpelab.client.versions.boot") == "snapshot"
    rewrite_build(page, build_info, snapshot_for_another_package)
    page.goto(site_url + "?boot=snapshot")
    expect(page.locator("#app")).to_have_attribute("data-state", "ready", timeout=BOOT_TIMEOUT_MS)
    reason = page.evaluate("() => bpelab.client.versions.boot_reason")
    assert reason.startswith("the snapshot holds bpelab")
    expect(page.locator("#status")).to_contain_text(reason)


def test_a_reload_fetches_no_hashed_file_and_revalidates_the_rest(playwright, site_dir, build_info, tmp_path):
    """Repeat visits: the hashed snapshot and package come from the cache unasked; build.json is a 304.

    The browser keeps a profile on disk, as a visitor's does. An incognito context's
    HTTP cache lives in memory and keeps no entry over an eighth of its 50 MB
    (6.25 MiB): a snapshot of 6.57 MB was fetched again on every reload there (CI).
    """
    import threading

    from bpelab.serve import SiteRequestHandler, make_server
    from site_harness import CHROMIUM, CHROMIUM_ARGS

    seen = []

    class Recording(SiteRequestHandler):
        def log_request(self, code="-", size="-"):
            seen.append((self.path.split("?")[0], int(code)))

    server = make_server(site_dir, port=0, handler_class=Recording)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    # No routes: Playwright's routing would switch the cache off.
    context = playwright.chromium.launch_persistent_context(
        tmp_path / "profile", executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = context.new_page()
        assert boot(page, url)["versions"]["boot"] == "snapshot"
        first = dict(seen)
        assert first["/" + build_info["snapshot"]["file"]] == 200
        # The snapshot loader asks for the wasm too (issue 23): the browser's cache answers it, one download.
        assert seen.count(("/pyodide/pyodide.asm.wasm", 200)) == 1, seen
        seen.clear()
        page.reload()
        assert page.evaluate(BOOT_JS)["versions"]["boot"] == "snapshot"
    finally:
        context.close()
        server.shutdown()
        server.server_close()
    again = dict(seen)
    assert "/" + build_info["snapshot"]["file"] not in again, again
    assert "/" + build_info["package_file"] not in again, again
    assert again["/build.json"] == 304 and again["/js/worker.js"] == 304


def test_the_pages_download_on_the_fallback_path_matches_the_cli_byte_for_byte(browser, site_url, tmp_path):
    """test_export_import.py runs on the snapshot path (the default); its zip download, once more on the fallback."""
    from site_harness import Site
    from test_export_import import TEXT as EXPORT_TEXT, cli_files, download, zip_contents

    context = browser.new_context(accept_downloads=True, viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        site = Site(page, site_url + "?boot=fallback")
        site.open()
        assert page.evaluate("() => bpelab.client.versions.boot") == "fallback"
        site.set_hash("#mode=merges&size=60")
        expect(page.locator("#size")).to_have_value("60")
        site.set_text(EXPORT_TEXT)
        site.train_and_wait()
        files = zip_contents(download(page, page.locator("#export-zip")))
    finally:
        context.close()
    assert files == cli_files(tmp_path, EXPORT_TEXT, "--merges", "60")

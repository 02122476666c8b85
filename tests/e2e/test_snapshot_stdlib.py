"""The snapshot path's standard library (issue 23).

Booted from the snapshot, Pyodide loads the build's small `snapshot.stdlib_file` instead of
the 2.5 MB pyodide/python_stdlib.zip: every module Pyodide and bpelab import is in the
snapshot's memory. Every request type must still work there without the full library, and a
module in neither (js/stdlib-fallback.js) must still import, from the full library fetched
on first need. The fallback path loads the full library as before.
"""

import json

import pytest

from bpelab import worker_api

SEED003 = ("low low low low low\n"
           "lower lower widest widest widest\n"
           "newest newest newest newest newest newest\n")
TEXT = ("The quick brown fox <|endoftext|> Über naïve café 12345 Съешь же ещё 敏捷的棕色狐狸 🙂 "
        "tabs\tand\r\n spaces. Xin chào thế giới, مرحبا بالعالم")

# One request of every type the worker answers, in an order where each finds what it needs.
# Each returns the type it sent; a failed request rejects, and the test reports it.
BATTERY_JS = """async ([seed, text]) => {
  const client = window.testClient;
  const sent = [];
  const ask = async (type, payload) => { sent.push(type); return client.request(type, payload); };
  await ask("ping", { echo: 1 });
  const info = await ask("train", { documents: [seed, text], record: true, heldout: text,
    settings: { vocab_size: 300, special_tokens: ["<|endoftext|>"] } });
  const h = info.handle;
  await ask("report", { handle: h, heldout: text });
  await ask("describe", { handle: h });
  const files = (await ask("export", { handle: h, id_layout: "gpt2" })).files;
  const pick = (names) => files.filter((f) => names.includes(f.name)).map((f) => ({ name: f.name, base64: f.base64 }));
  const imported = await ask("import", { files: pick(["encoder.json", "vocab.bpe", "manifest.json"]) });
  await ask("import", { files: pick(["tokenizer.json"]) });
  const gpt2 = await ask("reference", { name: "gpt2" });
  await ask("encode", { text, handles: [h, gpt2.handle, imported.handle], allowed_special: "all" });
  await ask("display", { handle: h, text, policy: "allow" });
  await ask("display", { handle: gpt2.handle, ids: [31373, 995] });
  await ask("vocab", { handle: gpt2.handle, kind: "text", query: "hello", start: 0, count: 10 });
  await ask("bundle", { handle: gpt2.handle });
  await ask("zip", { files: files.map((f) => ({ name: f.name, base64: f.base64 })) });
  await ask("pattern", { pattern: "\\\\p{L}+|\\\\d+| ?[^\\\\s\\\\p{L}\\\\d]+|\\\\s+", sample: text });
  await ask("steps", { handle: h, start: 0, stop: 5 });
  await ask("trace", { handle: h, text: "lowest newest" });
  const early = await ask("at_merges", { handle: h, merges: 5 });
  const bytes = await ask("bytes_tokenizer", {});
  await ask("compare", { handles: [h, gpt2.handle, bytes.handle], text, policy: "allow" });
  await ask("compare_copy", { handles: [h, gpt2.handle], text, policy: "allow" });
  await ask("token_detail", { handle: gpt2.handle, id: 31373 });
  await ask("merge_diff", { a: h, b: early.handle, text });
  await ask("language_table", { handles: [gpt2.handle],
    texts: [{ code: "en", name: "English", text: "hello world" }, { code: "ru", name: "Russian", text: "привет мир" }],
    base: "en" });
  const step = await ask("explore_step", { handle: h, step: 3, window: { start: 0, size: 200 } });
  await ask("explore_token", { handle: h, id: info.merges[2][2] });
  await ask("explore_trace", { handle: h, text: "lowest" });
  await ask("explore_judge", { handle: h, step: 0, pair: [info.merges[0][0], info.merges[0][1]] });
  await ask("counts_check", { counts: "low 5\\nlower 2\\nnewest 6\\nwidest 3", counts_format: "lines" });
  await ask("counts_check", { counts: JSON.stringify({ "low": 5, "wïdest": 3 }), counts_format: "json" });
  await ask("train", { counts: "low 5\\nlower 2\\nnewest 6\\nwidest 3", settings: { num_merges: 5, pretokenizer: "whitespace" } });
  await ask("drop", { handle: imported.handle });
  return { sent, steps: step.view ? true : false };
}"""

BOOT_JS = """async () => {
  const { WorkerClient } = await import("/js/worker-client.js");
  const client = new WorkerClient(new URL("/js/worker.js", location.href), {});
  window.testClient = client;
  return await client.ready;
}"""


@pytest.fixture
def worker_page(browser, site_url):
    """(page, urls, console) on a bare same-origin page (a 404: the site's policy, no app)."""
    context = browser.new_context()
    page = context.new_page()
    urls, console = [], []
    page.on("request", lambda request: urls.append(request.url.split("?")[0]))
    page.on("console", lambda message: console.append(message.text))

    def boot(query=""):
        page.goto(site_url + "stdlib-test" + query)
        return page.evaluate(BOOT_JS)

    yield page, urls, console, boot
    context.close()


@pytest.fixture(scope="module")
def build_info(site_dir):
    return json.loads((site_dir / "build.json").read_text("utf-8"))


def fetched_full_stdlib(urls):
    return [url for url in urls if url.endswith("/pyodide/python_stdlib.zip")]


def test_the_build_ships_a_small_standard_library_for_the_snapshot(build_info, site_dir):
    import zipfile

    snapshot = build_info["snapshot"]
    small = zipfile.ZipFile(site_dir / snapshot["stdlib_file"])
    assert sorted(name[:-3].replace("/", ".").removesuffix(".__init__") for name in small.namelist()) == \
        snapshot["stdlib_modules"]
    assert (site_dir / snapshot["stdlib_file"]).stat().st_size < 200_000
    full = zipfile.ZipFile(site_dir / "pyodide" / "python_stdlib.zip")
    tops = {name.split("/")[0].removesuffix(".py") for name in full.namelist()}
    assert {"email", "json", "encodings", "asyncio", "zipfile"} <= set(snapshot["stdlib_names"]) <= tops


def test_every_request_type_works_on_the_snapshot_path_without_the_full_standard_library(worker_page, build_info):
    page, urls, console, boot = worker_page
    assert boot()["boot"] == "snapshot"
    result = page.evaluate(BATTERY_JS, [SEED003, TEXT])
    # Every request type the worker answers is in the battery (a new one must be added above).
    assert set(worker_api._HANDLERS) <= set(result["sent"]), set(worker_api._HANDLERS) - set(result["sent"])
    assert any(url.endswith("/" + build_info["snapshot"]["stdlib_file"]) for url in urls)
    assert fetched_full_stdlib(urls) == [], console
    assert not [line for line in console if "the snapshot lacks" in line]


def test_the_fallback_path_loads_the_full_standard_library(worker_page, build_info):
    page, urls, _console, boot = worker_page
    assert boot("?boot=fallback")["boot"] == "fallback"
    assert len(fetched_full_stdlib(urls)) == 1
    assert not any(url.endswith("/" + build_info["snapshot"]["stdlib_file"]) for url in urls)
    assert page.evaluate("() => testClient.request('ping', {echo: 2})") == {"pong": 2}


IMPORT_JS = """async (name) => {
  try { return { ok: true, ...(await testClient.request("_debug_import", { module: name })) }; }
  catch (error) { return { ok: false, type: error.type, message: error.message }; }
}"""


@pytest.mark.parametrize("module, folder", [
    ("email.mime.text", "email/mime/text.py"),   # a package the snapshot lacks
    ("calendar", "calendar.py"),                  # a plain module
    ("encodings.utf_16", "encodings/utf_16.py"),  # a submodule of a package the snapshot holds
    ("json.tool", "json/tool.py"),
], ids=["package", "module", "codec", "submodule"])
def test_a_module_the_snapshot_lacks_comes_from_the_full_library_fetched_once(worker_page, module, folder):
    page, urls, console, boot = worker_page
    assert boot("?debug=import")["boot"] == "snapshot"
    assert fetched_full_stdlib(urls) == []
    first = page.evaluate(IMPORT_JS, module)
    assert first["ok"], first
    assert first["file"].endswith("python_stdlib_full.zip/" + folder), first
    assert len(fetched_full_stdlib(urls)) == 1
    assert [line for line in console if "the snapshot lacks" in line]
    # Once on sys.path, the full library serves the next import without another download.
    second = page.evaluate(IMPORT_JS, "difflib")
    assert second["ok"] and second["file"].endswith("python_stdlib_full.zip/difflib.py"), second
    assert len(fetched_full_stdlib(urls)) == 1


@pytest.mark.parametrize("module", ["no_such_module_anywhere", "json.no_such_submodule", "_no_such_accelerator"])
def test_a_module_in_no_library_fails_at_once_without_a_download(worker_page, module):
    page, urls, _console, boot = worker_page
    assert boot("?debug=import")["boot"] == "snapshot"
    result = page.evaluate(IMPORT_JS, module)
    assert result["ok"] is False and result["type"] == "ModuleNotFoundError", result
    assert module.split(".")[-1] in result["message"]
    # json is in the full library, so json.no_such_submodule is looked for there: one download.
    assert len(fetched_full_stdlib(urls)) == (1 if module.startswith("json.") else 0)


def test_a_standard_library_that_cannot_be_fetched_says_so(worker_page):
    page, _urls, _console, boot = worker_page
    page.route("**/pyodide/python_stdlib.zip", lambda route: route.fulfill(status=404, body="gone"))
    assert boot("?debug=import")["boot"] == "snapshot"
    result = page.evaluate(IMPORT_JS, "calendar")
    assert result["ok"] is False and result["type"] == "ImportError", result
    assert "calendar is not in the snapshot's standard library, and /pyodide/python_stdlib.zip could not be " \
           "fetched: HTTP 404" in result["message"]


def test_the_import_request_needs_the_flag(worker_page):
    page, _urls, _console, boot = worker_page
    boot()
    result = page.evaluate(IMPORT_JS, "calendar")
    assert result == {"ok": False, "type": "RequestError",
                      "message": "_debug_import needs the page opened with ?debug=import"}

"""Benchmark the embed in Chromium: time from a widget entering the view to its `ready`, and memory.

Usage: .venv/bin/python build_scripts/bench_embed.py [--runs 3] [--wait 30] [--out bench_results/embed.json]

The site is built into a temporary folder and served as the widgets' site on
http://127.0.0.1:A/; the course pages are generated into another folder and
served on http://localhost:B/ (another site, so the widgets run in their own
renderer process, as they would on a real course page). Each widget is seed
003's explorer (`view=explorer&sample=seed003-low-lower&step=3`).

1. Time to ready: a fresh Chromium per run (cold HTTP and wasm caches). The
   page loads with the widgets below the fold, showing their previews; the
   clock starts when the page scrolls them into view and stops at each
   widget's `ready` message (host page clock). With two widgets, both enter
   the view at once (side by side); both times are printed. Medians of --runs.
2. Memory: PSS (from /proc/<pid>/smaps_rollup) summed over Chromium's
   processes: renderers (pages, frames and their workers) and all of them.
   Pages with 0 (previews only), 1, 2 and 3 widgets all in view and ready;
   then the 3-widget page scrolled so that two are out of view for --wait
   seconds (the widget gives its worker back after 30 s), and the time for one
   of them to be ready again once scrolled back.
"""

import argparse
import importlib.util
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "py"))
from chromium import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (build_scripts/chromium.py)
WIDGET_QUERY = "view=explorer&sample=seed003-low-lower&step=3"
VIEWPORT = {"width": 1280, "height": 900}

RECORD = """
window.__bpe = [];
addEventListener("message", (event) => {
  const m = event.data;
  if (m && m.source === "bpe-lab") window.__bpe.push({type: m.type, id: m.id, t: performance.now()});
});
"""


def host_page(widget_url, n, side_by_side):
    """A course page with n widgets below a spacer; side by side they enter the view together."""
    width = f"calc({100 // n}% - 8px)" if side_by_side else "100%"
    frames = "\n".join(
        f'<iframe id="w{i}" title="widget {i}" src="{widget_url}embed.html?{WIDGET_QUERY}&id=w{i}" '
        f'style="width:{width};height:600px;border:1px solid #ccc;display:{"inline-block" if side_by_side else "block"}"></iframe>'
        for i in range(n))
    return f"""<!doctype html><html lang="en"><meta charset="utf-8"><title>bench {n}</title>
<script src="record.js"></script>
<div id="top" style="height:2000px">spacer: the widgets are below the fold</div>
<div id="widgets">{frames}</div>
<div style="height:3000px"></div></html>"""


def _descendants(root_pid):
    """root_pid and every process below it."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    todo, tree = [root_pid], []
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def _parent(pid):
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return [b""]


def pss_by_kind(root_pid):
    """{"renderer": kB, "all": kB, "processes": n} over the Chromium processes from root_pid down."""
    totals = {"renderer": 0, "all": 0, "processes": 0}
    for pid in _descendants(root_pid):
        cmdline = _cmdline(pid)
        if b"chrom" not in cmdline[0]:
            continue
        try:
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
        except OSError:
            continue
        pss = next(int(line.split()[1]) for line in rollup.splitlines() if line.startswith("Pss:"))
        totals["all"] += pss
        totals["processes"] += 1
        # Zygote-forked processes rewrite their title: one string with spaces, not NUL-separated arguments.
        if b"--type=renderer" in b" ".join(cmdline):
            totals["renderer"] += pss
    return totals


def wait_states(page, n, state, timeout=180):
    """Wait until widgets w0..w(n-1) show data-state=state."""
    deadline = time.monotonic() + timeout
    for i in range(n):
        frame = page.frame_locator(f"#w{i}")
        frame.locator(f'#embed[data-state="{state}"]').wait_for(timeout=max(1, deadline - time.monotonic()) * 1000)


def time_to_ready(playwright, host_url, n):
    """[seconds per widget] from scrolling n side-by-side widgets into view to their ready messages."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        page = browser.new_page(viewport=VIEWPORT)
        page.goto(f"{host_url}page{n}.html")
        wait_states(page, n, "preview")
        start = page.evaluate("() => { const t = performance.now(); document.getElementById('widgets').scrollIntoView(); return t; }")
        page.wait_for_function(f"window.__bpe.filter((m) => m.type === 'ready').length >= {n}", timeout=180_000)
        ready = page.evaluate("window.__bpe.filter((m) => m.type === 'ready').map((m) => [m.id, m.t])")
        return [round((t - start) / 1000, 3) for _, t in sorted(ready)]
    finally:
        browser.close()


def browser_pids():
    """The pids of the Chromium browser processes below this one (Playwright's driver starts them)."""
    return {pid for pid in _descendants(os.getpid())
            if b"chrom" in _cmdline(pid)[0] and b"--type=" not in b" ".join(_cmdline(pid))}


def memory(playwright, host_url, wait):
    rows = {}
    before = browser_pids()
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    try:
        new = browser_pids() - before
        # The browser itself is the one whose parent is not a Chromium process (crashpad handlers are its children).
        new = {pid for pid in new if _parent(pid) not in new and b"crashpad" not in _cmdline(pid)[0]}
        if len(new) != 1:
            raise SystemExit(f"expected one new Chromium browser process below pid {os.getpid()}, found {sorted(new)}")
        pid = new.pop()
        for n in (0, 1, 2, 3):
            page = browser.new_page(viewport={"width": 1280, "height": 2400})
            page.goto(f"{host_url}{'stack3' if n == 0 else f'stack{n}'}.html")
            if n == 0:
                wait_states(page, 3, "preview")  # below the fold: previews only
            else:
                page.evaluate("document.getElementById('widgets').scrollIntoView()")
                page.wait_for_function(f"window.__bpe.filter((m) => m.type === 'ready').length >= {n}", timeout=240_000)
            time.sleep(3)
            rows[f"{n} in view" if n else "previews only"] = pss_by_kind(pid)
            if n < 3:
                page.close()
        # The 3-widget page: scroll so that only the last widget stays in view.
        page.evaluate("document.getElementById('w2').scrollIntoView({block: 'start'})")
        in_view = page.evaluate("""[0, 1, 2].map((i) => { const r = document.getElementById('w' + i).getBoundingClientRect();
                                     return r.bottom > 0 && r.top < innerHeight; })""")
        time.sleep(wait + 5)
        released = [page.frame_locator(f"#w{i}").locator("#embed").get_attribute("data-state") for i in range(3)]
        time.sleep(2)
        rows[f"3 widgets, 2 out of view for {wait} s"] = {**pss_by_kind(pid), "in_view": in_view, "states": released}
        start = time.perf_counter()
        page.evaluate("document.getElementById('widgets').scrollIntoView({block: 'start'})")
        page.frame_locator("#w0").locator('#embed[data-state="ready"]').wait_for(timeout=120_000)
        restore = time.perf_counter() - start
        time.sleep(2)
        rows["3 widgets, back in view"] = pss_by_kind(pid)
        return rows, round(restore, 3)
    finally:
        browser.close()


def stack_page(widget_url, n):
    """n widgets stacked in a tall viewport (all in view at 1280x2400), after a spacer."""
    return (host_page(widget_url, n, side_by_side=False).replace("height:600px", "height:700px")
            .replace('id="top" style="height:2000px"', 'id="top" style="height:3000px"'))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh browsers per time-to-ready figure (default 3)")
    parser.add_argument("--wait", type=int, default=30, help="seconds two widgets stay out of view (default 30)")
    parser.add_argument("--site", type=Path, help="a built site to serve instead of building one")
    parser.add_argument("--out", type=Path, default=ROOT / "bench_results" / "embed.json")
    args = parser.parse_args(argv)

    from playwright.sync_api import sync_playwright

    from bpelab.serve import serve_in_thread

    spec = importlib.util.spec_from_file_location("bpelab_build_site", ROOT / "build_scripts" / "build_site.py")
    build_site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build_site)
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site or Path(tmp) / "site"
        if not args.site:
            build_site.build(site)
        widget_server, widget_url = serve_in_thread(site)
        pages = Path(tmp) / "pages"
        pages.mkdir()
        host_server, host_url = serve_in_thread(pages, host="localhost")
        (pages / "record.js").write_text(RECORD)
        for n in (1, 2):
            (pages / f"page{n}.html").write_text(host_page(widget_url, n, side_by_side=True))
        for n in (1, 2, 3):
            (pages / f"stack{n}.html").write_text(stack_page(widget_url, n))
        results = {"chromium": CHROMIUM, "machine": platform.machine(), "cpus": os.cpu_count(), "widget": WIDGET_QUERY,
                   "load_before": os.getloadavg()}
        # Times on a busy machine mean little: the load average is printed with them.
        print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
        with sync_playwright() as playwright:
            for n in (1, 2):
                runs = [time_to_ready(playwright, host_url, n) for _ in range(args.runs)]
                per_widget = [statistics.median(run[i] for run in runs) for i in range(n)]
                results[f"ready_{n}"] = {"runs": runs, "median_per_widget": per_widget}
                print(f"time to ready, {n} widget{'s' if n > 1 else ''} entering the view together: "
                      f"median {', '.join(f'{t:.2f} s' for t in per_widget)}  (runs: {runs})", flush=True)
            rows, restore = memory(playwright, host_url, args.wait)
        results["load_after"] = os.getloadavg()
        print(f"load average now {os.getloadavg()[0]:.1f}")
        results["pss_kB"] = rows
        results["restore_seconds"] = restore
        base = rows["previews only"]
        print("\nPSS (MB), Chromium's renderers / all its processes:")
        for name, row in rows.items():
            extra = f"  (+{(row['renderer'] - base['renderer']) / 1024:.0f} MB renderers over the previews)" if row is not base else ""
            states = f"  states: {row['states']}" if "states" in row else ""
            print(f"  {name:38s} {row['renderer'] / 1024:7.0f} / {row['all'] / 1024:7.0f}{extra}{states}")
        print(f"\nback in view: a released widget is ready again after {restore:.2f} s")
        widget_server.shutdown()
        host_server.shutdown()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

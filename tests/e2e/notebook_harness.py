"""Notebook servers for the widget tests: JupyterLab and marimo, headless, on 127.0.0.1, free ports.

Each server runs in a temporary copy of examples/ with its own Jupyter config, data and
settings folders (so nothing of the user's setup, and no news pop-up, reaches the page).
The port is the system's choice (port 0 for Jupyter, a port found free for marimo); the
server's URL is read from its log. `stop()` shuts the kernels down through the server's
API, then ends the server and waits for it: nothing is left running.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
START_TIMEOUT_S = 180


class Server:
    """A notebook server process whose log is read in a thread; `url` once it listens."""

    def __init__(self, args, cwd, env, url_pattern):
        self.log = []
        self._found = threading.Event()
        self.url = None
        self._pattern = re.compile(url_pattern)
        self.process = subprocess.Popen(args, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True, start_new_session=True)
        threading.Thread(target=self._read, daemon=True).start()
        if not self._found.wait(START_TIMEOUT_S) or self.url is None:
            tail = "\n".join(self.log[-40:])
            self.stop()
            raise AssertionError(f"{args[2]} did not start within {START_TIMEOUT_S} s:\n{tail}")

    def _read(self):
        for line in self.process.stdout:
            self.log.append(line.rstrip())
            match = self.url is None and self._pattern.search(line)
            if match:
                self.url = match.group(1)
                self._found.set()
        self._found.set()  # the process ended

    def stop(self):
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(30)


def _private_dirs(base, env):
    for name, var in [("config", "JUPYTER_CONFIG_DIR"), ("data", "JUPYTER_DATA_DIR"), ("runtime", "JUPYTER_RUNTIME_DIR"),
                      ("settings", "JUPYTERLAB_SETTINGS_DIR"), ("workspaces", "JUPYTERLAB_WORKSPACES_DIR")]:
        (base / name).mkdir(parents=True, exist_ok=True)
        env[var] = str(base / name)
    # The kernel this venv's ipykernel provides (the private data dir hides the user's kernelspecs).
    shutil.copytree(Path(sys.prefix) / "share" / "jupyter" / "kernels", base / "data" / "kernels")
    news = base / "settings" / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)
    (news / "notification.jupyterlab-settings").write_text(json.dumps({"fetchNews": "false"}))
    return env


def lesson_folder(tmp):
    """A copy of examples/ for one server: the lessons write their exported files beside them."""
    folder = tmp / "examples"
    shutil.copytree(ROOT / "examples", folder)
    return folder


def start_jupyterlab(tmp, folder):
    env = _private_dirs(tmp / "jupyter", dict(os.environ))
    args = [sys.executable, "-m", "jupyterlab", "--no-browser", "--port=0", "--ServerApp.port_retries=0",
            "--ServerApp.token=", "--ServerApp.password=", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.root_dir={folder}",
            "--LabApp.expose_app_in_browser=True"]  # window.jupyterapp: the tests switch JupyterLab's theme with it
    if os.geteuid() == 0:
        args.append("--allow-root")
    server = Server(args, folder, env, r"(http://127\.0\.0\.1:\d+)/lab")
    stop = server.stop

    def stop_kernels_then_server():
        try:
            with urllib.request.urlopen(f"{server.url}/api/kernels", timeout=10) as response:
                kernels = json.loads(response.read())
            for kernel in kernels:
                request = urllib.request.Request(f"{server.url}/api/kernels/{kernel['id']}", method="DELETE")
                urllib.request.urlopen(request, timeout=30).close()
        except OSError:
            pass  # the server is gone already; its own shutdown ends its kernels
        stop()

    server.stop = stop_kernels_then_server
    return server


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_marimo(tmp, folder, notebook="lesson.py", mode="edit", theme="light"):
    """marimo with a user config of its own: its display theme ("light" or "dark") is marimo's setting."""
    home = tmp / f"home-{theme}"
    env = dict(os.environ, HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"))
    (home / ".config" / "marimo").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "marimo" / "marimo.toml").write_text(f'[display]\ntheme = "{theme}"\n', encoding="utf-8")
    args = [sys.executable, "-m", "marimo", "-y", mode, notebook, "--headless", "--host", "127.0.0.1",
            "--port", str(free_port()), "--no-token"]
    if mode == "edit":
        args.append("--skip-update-check")
    server = Server(args, folder, env, r"URL: (http://(?:127\.0\.0\.1|localhost):\d+)")
    server.url = server.url.replace("localhost", "127.0.0.1")  # it listens on --host 127.0.0.1 only
    return server


def axe_violations(page, selector):
    """axe-core's serious and critical violations inside each node matching selector, as readable lines."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_JS.read_text("utf-8") + "\n;undefined")
    return page.evaluate(
        """async (selector) => {
            const out = [];
            for (const node of document.querySelectorAll(selector)) {
                const result = await axe.run(node, { resultTypes: ["violations"] });
                for (const v of result.violations) {
                    if (v.impact !== "serious" && v.impact !== "critical") continue;
                    for (const n of v.nodes.slice(0, 8)) out.push(`${v.impact} ${v.id}: ${v.help} at ${n.target.join(" ")}`);
                }
            }
            return out;
        }""", selector)

"""End-to-end fixtures: the built site served from a thread, Debian's Chromium, one booted page per module.

- `site_url`: the site is built once per session into a temporary folder (so
  the tests never see a stale dist/) and served on 127.0.0.1 with a free port.
- `browser_type_launch_args`: pytest-playwright's launch arguments, pointed at
  /usr/bin/chromium (or $BPELAB_CHROMIUM): `playwright install` cannot
  download a browser here.
- `site`: a page per test module that has booted to data-state=ready. Every
  request to another origin is aborted and recorded in `site.outside`; the
  browser console is kept in `site.console` and printed when a test fails.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

from site_harness import CHROMIUM, CHROMIUM_ARGS, ROOT, Site


def _load_build_site():
    spec = importlib.util.spec_from_file_location("bpelab_build_site", ROOT / "build_scripts" / "build_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def site_dir(tmp_path_factory):
    """The site, freshly built from web/ and the package."""
    out = tmp_path_factory.mktemp("site") / "dist"
    _load_build_site().build(out)
    return out


@pytest.fixture(scope="session")
def site_url(site_dir):
    from bpelab.serve import serve_in_thread

    server, url = serve_in_thread(site_dir)
    yield url
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not Path(CHROMIUM).exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install chromium, or set BPELAB_CHROMIUM")
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}


def _new_site(browser, url, viewport=None):
    context = browser.new_context(accept_downloads=True, viewport=viewport or {"width": 1280, "height": 900})
    page = context.new_page()
    site = Site(page, url)
    origin = url.rstrip("/")

    def route(route_):
        request_url = route_.request.url
        site.requests.append(request_url)
        if request_url.startswith(origin + "/") or request_url.startswith(("blob:", "data:")):
            route_.continue_()
        else:
            site.outside.append(request_url)
            route_.abort()

    context.route("**/*", route)
    page.on("console", lambda message: site.console.append(f"{message.type}: {message.text}"))
    page.on("pageerror", lambda error: site.console.append(f"pageerror: {error}"))
    return context, site


@pytest.fixture(scope="module")
def site(browser, site_url):
    """A page per test module, booted to data-state=ready."""
    context, site = _new_site(browser, site_url)
    site.open()
    yield site
    context.close()


@pytest.fixture
def fresh_site(browser, site_url):
    """A page of its own for tests that must watch the boot or change global state."""
    context, site = _new_site(browser, site_url)
    yield site
    context.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed:
        return
    for value in getattr(item, "funcargs", {}).values():
        if isinstance(value, Site):
            report.sections.append(("browser console", "\n".join(value.console[-200:]) or "(empty)"))
            if value.outside:
                report.sections.append(("requests to other origins", "\n".join(value.outside)))


def pytest_configure(config):
    # bpelab is installed editable in .venv; this keeps `pytest tests/e2e` working from a bare checkout too.
    sys.path.insert(0, str(ROOT / "py"))

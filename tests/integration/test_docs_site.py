"""The documentation site builds with `mkdocs build --strict` and renders in headless Chromium: every
page has its <h1>, every image it shows is a file that is there and not empty, and no link inside the
site points to a missing page or anchor. The start page's screenshot is not blank.

Skips where MkDocs (the `docs` extra) or Chromium is missing; `bash scripts/docs.sh` installs both
(`DOCS_BROWSER=required` makes a Chromium it cannot install an error, as `.ci/run` asks)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from tests.helpers import slowdown

ROOT = Path(__file__).resolve().parents[2]
MKDOCS_YML = ROOT / "mkdocs.yml"
PAGES_AT_LEAST = 15  # the site's pages (home, getting started, concepts, 11 guides, 3 references, results)


def docs_tools_missing() -> str | None:
    if not MKDOCS_YML.is_file():
        return "no mkdocs.yml here (an unpacked sdist without the docs?)"
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed: pip install -e '.[docs]' (bash scripts/docs.sh does)"
    return None


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


pytestmark = [
    pytest.mark.skipif(docs_tools_missing() is not None, reason=str(docs_tools_missing())),
    pytest.mark.skipif(
        chromium() is None,
        reason="chromium is not installed: apt-get install -y chromium "
        "(bash scripts/docs.sh with DOCS_BROWSER=required does)",
    ),
]


# --- what a page holds ------------------------------------------------------------------------------


class PageParser(HTMLParser):
    """The ids, <h1> texts, <img> sources and <a> hrefs of an HTML document."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.h1: list[str] = []
        self.images: list[str] = []
        self.links: list[str] = []
        self._in_h1 = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        if tag == "h1":
            self._in_h1 += 1
            self.h1.append("")
        elif tag == "img" and attrs.get("src"):
            self.images.append(attrs["src"])
        elif tag == "a" and attrs.get("href") is not None:
            self.links.append(attrs["href"])

    def handle_endtag(self, tag):
        if tag == "h1" and self._in_h1:
            self._in_h1 -= 1

    def handle_data(self, data):
        if self._in_h1:
            self.h1[-1] += data


def parse(html: str) -> PageParser:
    parser = PageParser()
    parser.feed(html)
    return parser


def internal_target(site: Path, page: Path, url: str) -> tuple[Path, str] | None:
    """The file and fragment a link or image source of `page` points to inside the site; None for one
    that leaves it (another scheme, another host). A path from the root (the 404 page's, which any URL
    may serve) is taken from the site's root."""
    parts = urlsplit(url)
    if parts.scheme or parts.netloc or url.startswith("//"):
        return None
    path = unquote(parts.path)
    base = site if path.startswith("/") else page.parent
    target = (base / path.lstrip("/")).resolve() if path else page.resolve()
    if target.is_dir():
        target = target / "index.html"
    return target, unquote(parts.fragment)


def broken_links(site: Path) -> list[str]:
    """Every <a href> of every page of `site` that points inside the site to a file that is not there, or
    to an anchor its page does not have, as `page: href (why)`."""
    pages = {path.resolve(): parse(path.read_text(encoding="utf-8")) for path in site.rglob("*.html")}
    broken = []
    for page, parsed in sorted(pages.items()):
        for href in parsed.links:
            target = internal_target(site, page, href)
            if target is None:
                continue
            file, fragment = target
            where = f"{page.relative_to(site.resolve())}: {href}"
            if not file.is_relative_to(site.resolve()):
                broken.append(f"{where} (outside the site)")
            elif not file.is_file():
                broken.append(f"{where} (no such page)")
            elif fragment and file.suffix == ".html" and fragment not in pages[file].ids:
                broken.append(f"{where} (no anchor #{fragment} on that page)")
    return broken


# --- the built site, and Chromium on it -----------------------------------------------------------------


def build_site(out: Path) -> Path:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(MKDOCS_YML), "-d", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600 * slowdown(),
    )
    assert run.returncode == 0, f"mkdocs build --strict failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build_site(tmp_path_factory.mktemp("docs") / "site")


def browse(*args: str, profile: Path) -> subprocess.CompletedProcess:
    """Headless Chromium with a profile of its own (root needs --no-sandbox)."""
    command = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(command, capture_output=True, text=True, timeout=120 * slowdown())


def site_pages(site: Path) -> list[Path]:
    return sorted(path for path in site.rglob("*.html") if path.name != "404.html")


# --- the tests ---------------------------------------------------------------------------------------


def test_every_page_renders_with_its_heading_and_images(site, tmp_path):
    pages = site_pages(site)
    assert len(pages) >= PAGES_AT_LEAST, [str(page.relative_to(site)) for page in pages]
    problems = []
    for page in pages:
        name = page.relative_to(site)
        run = browse("--dump-dom", page.as_uri(), profile=tmp_path / "profile")
        dom = parse(run.stdout)
        if run.returncode != 0 or not dom.h1 or not dom.h1[0].strip():
            problems.append(
                f"{name}: no <h1> in the rendered page (chromium exit {run.returncode}: {run.stderr.strip()[-300:]})"
            )
        for src in dom.images:
            target = internal_target(site, page, src)
            if target is None:
                if not src.startswith("data:"):
                    problems.append(f"{name}: image {src} is not in the site")
                continue
            file = target[0]
            if not file.is_file() or file.stat().st_size == 0:
                problems.append(f"{name}: image {src} is missing or empty")
    assert not problems, "\n".join(problems)


def test_every_figure_of_the_results_page_is_shown(site, tmp_path):
    dom = parse(browse("--dump-dom", (site / "results.html").as_uri(), profile=tmp_path / "profile").stdout)
    shown = {Path(src).name for src in dom.images}
    assert {"curves.png", "pong-atari-fast-seed0.png", "soak.png"} <= shown, shown  # MinAtar's, Pong's, the soak's


def test_no_internal_link_points_to_a_missing_page_or_anchor(site):
    assert not broken_links(site), "\n".join(broken_links(site))


def test_the_link_checker_finds_a_broken_page_and_a_broken_anchor(site, tmp_path):
    copy = shutil.copytree(site, tmp_path / "site")
    page = copy / "concepts.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace(
            "</article>",
            '<a href="guides/no-such-page.html">x</a><a href="index.html#no-such-anchor">y</a></article>',
            1,
        ),
        encoding="utf-8",
    )
    assert sorted(set(broken_links(copy)) - set(broken_links(site))) == [
        "concepts.html: guides/no-such-page.html (no such page)",
        "concepts.html: index.html#no-such-anchor (no anchor #no-such-anchor on that page)",
    ]


def test_the_reference_pages_come_from_the_code(site):
    from gorila.cli.main import COMMANDS
    from gorila.config.parsing import field_types

    config = parse((site / "reference" / "config.html").read_text(encoding="utf-8"))
    assert set(field_types()) <= config.ids, sorted(set(field_types()) - config.ids)
    cli = parse((site / "reference" / "cli.html").read_text(encoding="utf-8"))
    assert {f"gorila-{name}" for name in COMMANDS} <= cli.ids
    api = parse((site / "reference" / "api.html").read_text(encoding="utf-8"))
    assert {"gorila.api.train", "gorila.api.evaluate", "gorila.api.make_config"} <= api.ids


def test_the_start_page_screenshot_is_not_blank(site, tmp_path):
    from PIL import Image

    shot = tmp_path / "start.png"
    run = browse(
        f"--screenshot={shot}", "--window-size=1280,900", (site / "index.html").as_uri(), profile=tmp_path / "profile"
    )
    assert shot.is_file() and shot.stat().st_size > 0, run.stderr[-1000:]
    with Image.open(shot) as image:
        assert image.size == (1280, 900)
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 50, f"a nearly blank screenshot: {len(colours)} colours"

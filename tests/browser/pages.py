"""The web page in a real Chromium: tabs, what their DOM shows, screenshots.

The DOM is read as HTML (``inner_html``) and parsed here, so that the tests
run no script of theirs in the page except to read ``window.tabletop.received``
(the responses the page got, which api.ts keeps for debugging) and the page's
width.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import Browser, Page, ViewportSize

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "build" / "screenshots"
DOCS_SCREENSHOTS = ROOT / "docs" / "web"
UPDATE_DOCS = "TABLETOP_UPDATE_DOCS_SCREENSHOTS"

DESKTOP: ViewportSize = {"width": 1280, "height": 800}
PHONE: ViewportSize = {"width": 360, "height": 740}
WAIT_MS = 60_000  # the longest any one thing the page shows may take to come


@dataclass
class Tab:
    """A page in a browser context of its own, with the errors it raised."""

    page: Page
    errors: list[str] = field(default_factory=list)

    def close(self) -> None:
        self.page.context.close()

    def wait_for_revision(self, revision: int, mode: str = "") -> None:
        """Waits until the board drawn is the one of ``revision``."""
        selector = f'#board[data-revision="{revision}"]'
        if mode:
            selector += f'[data-mode="{mode}"]'
        self.page.wait_for_selector(
            f"{selector} svg", state="attached", timeout=WAIT_MS
        )

    def board_revision(self) -> int | None:
        value = self.page.get_attribute("#board", "data-revision")
        return int(value) if value else None

    def board(self) -> Node:
        """Returns what the board holds, parsed."""
        return parse(self.page.inner_html("#board"))

    def scores(self) -> dict[str, int]:
        """Returns the scores shown: player name -> score."""
        return {
            str(item.attrs["data-player"]): int(str(item.attrs["data-score"]))
            for item in parse(self.page.inner_html("#scores")).find_all("li")
        }

    def winners(self) -> set[str]:
        return {
            str(item.attrs["data-player"])
            for item in parse(self.page.inner_html("#scores")).find_all("li")
            if "data-winner" in item.attrs and item.attrs["data-winner"] != "false"
        }

    def log(self) -> Node:
        return parse(self.page.inner_html("#log"))

    def received(self) -> list[dict[str, Any]]:
        """Returns ``window.tabletop.received``: the page's last responses as JSON."""
        return cast(
            "list[dict[str, Any]]", self.page.evaluate("() => window.tabletop.received")
        )

    def received_snapshots(self, revision: int) -> list[dict[str, Any]]:
        """Returns the GetGameRevision responses received for ``revision``."""
        return cast(
            "list[dict[str, Any]]",
            self.page.evaluate(
                "(revision) => window.tabletop.received.filter("
                "(m) => m.snapshot !== undefined && m.snapshot.revision === revision)",
                str(revision),
            ),
        )

    def page_width(self) -> tuple[int, int]:
        """Returns the page's scroll width and the window's width, in CSS pixels."""
        scroll, inner = cast(
            "list[int]",
            self.page.evaluate(
                "() => [Math.max(document.documentElement.scrollWidth,"
                " document.body.scrollWidth), window.innerWidth]"
            ),
        )
        return scroll, inner

    def assert_no_horizontal_scrolling(self) -> None:
        scroll, inner = self.page_width()
        assert scroll <= inner, (
            f"the page scrolls sideways at {inner} px: it is {scroll} px wide"
        )

    def screenshot(self, name: str, *, docs: bool = False) -> Path:
        """Writes the visible part of the page to build/screenshots/<name>.png and,
        with ``docs`` and TABLETOP_UPDATE_DOCS_SCREENSHOTS=1, to docs/web/ too."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=path, animations="disabled", caret="hide")
        if docs and os.environ.get(UPDATE_DOCS) == "1":
            DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            (DOCS_SCREENSHOTS / f"{name.removesuffix('-desktop')}.png").write_bytes(
                path.read_bytes()
            )
        return path


def open_tab(browser: Browser, url: str, viewport: ViewportSize) -> Tab:
    """Opens ``url`` in a new browser context (its own sessionStorage) of that size."""
    # bypass_csp: the page's Content-Security-Policy forbids eval, which
    # Playwright's string expressions (Tab.received) would need.
    context = browser.new_context(
        viewport=viewport, device_scale_factor=1, bypass_csp=True
    )
    context.set_default_timeout(WAIT_MS)
    page = context.new_page()
    tab = Tab(page)
    page.on("pageerror", lambda error: tab.errors.append(str(error)))
    page.goto(url)
    return tab


# ---------------------------------------------------------------------------
# The DOM as a tree of nodes.

# HTML's elements without an end tag.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta"}
    | {"source", "track", "wbr"}
)


@dataclass
class Node:
    """An element: its tag, attributes, children and its own text."""

    tag: str
    attrs: dict[str, str | None]
    children: list[Node] = field(default_factory=list)
    own_text: list[str] = field(default_factory=list)

    def walk(self) -> Iterator[Node]:
        yield self
        for child in self.children:
            yield from child.walk()

    def find_all(self, tag: str = "", attribute: str = "") -> list[Node]:
        """Returns the descendants (and self) with ``tag`` and/or ``attribute``."""
        return [
            node
            for node in self.walk()
            if (not tag or node.tag == tag)
            and (not attribute or attribute in node.attrs)
        ]

    def text(self) -> str:
        return "".join(part for node in self.walk() for part in node.own_text).strip()

    def get(self, attribute: str) -> str:
        value = self.attrs.get(attribute)
        return "" if value is None else value


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, dict(attrs))
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Node(tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].own_text.append(data)


def parse(markup: str) -> Node:
    """Parses serialized HTML (with inline SVG) into a tree under a #root node."""
    builder = _TreeBuilder()
    builder.feed(markup)
    builder.close()
    return builder.root

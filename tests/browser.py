"""A real browser on the MLflow UI: Debian's Chromium driven by Playwright (no browser download:
Playwright launches the system's `chromium`), a fresh profile each time, 1600 x 1000 pixels,
as a user's first visit. Used by the browser tests and docs/screenshots/make.py.

`visible_text(page, element)` says whether an element's whole text is on the first screen:
inside the viewport, not cut by its own box (an ellipsis), and not under anything else (the
assistant panel MLflow opens on a first visit, a popup): the points at both ends of the text
hit the element itself.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
VIEWPORT = {"width": 1600, "height": 1000}
#: flags that keep Chromium off the network this machine does not have
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextmanager
def browser_page() -> Iterator[Any]:
    """A page in a fresh browser profile (nothing remembered from an earlier visit)."""
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "no chromium on PATH"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            page = browser.new_context(viewport=VIEWPORT).new_page()
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()


_WHOLE_TEXT_SHOWN = """(el) => {
  const box = el.getBoundingClientRect();
  const range = document.createRange();
  range.selectNodeContents(el);
  const text = range.getBoundingClientRect();
  const y = text.top + text.height / 2;
  const hits = [text.left + 1, text.right - 1].map((x) => document.elementFromPoint(x, y));
  return {
    text: el.innerText,
    inViewport: text.left >= 0 && text.top >= 0 && text.right <= innerWidth
      && text.bottom <= innerHeight,
    notCut: text.right <= box.right + 0.5 && el.scrollWidth <= el.clientWidth + 1,
    onTop: hits.every((h) => h !== null && (el.contains(h) || h.contains(el))),
  };
}"""


def visible_text(locator: Any) -> dict[str, Any]:
    """What `_WHOLE_TEXT_SHOWN` finds for the first element `locator` matches."""
    return dict(locator.first.evaluate(_WHOLE_TEXT_SHOWN))


def shown(locator: Any) -> bool:
    """The element's whole text is on the first screen (`visible_text`)."""
    seen = visible_text(locator)
    return bool(seen["inViewport"] and seen["notCut"] and seen["onTop"])


_START_SHOWN = """(el) => {
  const box = el.getBoundingClientRect();
  const y = box.top + Math.min(box.height, 20) / 2;
  const hit = document.elementFromPoint(box.left + 2, y);
  return box.top >= 0 && box.bottom <= innerHeight && box.left >= 0
    && hit !== null && (el.contains(hit) || hit.contains(el));
}"""


def starts_shown(locator: Any) -> bool:
    """The element begins on the first screen, uncovered (a long line may end in an ellipsis)."""
    return bool(locator.first.evaluate(_START_SHOWN))

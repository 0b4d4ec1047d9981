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
# Tags read to tell the depth, at most: a newsletter has a few thousand; reading millions
# would cost seconds of its own.
MAX_TAGS = 100_000
# Where a tag starts, its name and whether it ends one; what follows the name is not read, so
# a `<` or `>` inside an attribute cannot hide a tag. Comments are taken out first.
_TAG_START = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9:-]*)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
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
    """The HTML safe to show; None for HTML nested deeper than MAX_DEPTH or of more than
    MAX_TAGS tags, which is not kept (the text part, or the text read from it, stands
    for it)."""
    if _nests_deeper(html, MAX_DEPTH):
        return None
    return nh3.clean(html, url_schemes=URL_SCHEMES, clean_content_tags={"script", "style"})


def _nests_deeper(html: str, limit: int) -> bool:
    """Whether elements open inside each other deeper than `limit`, as a browser would
    nest them, or deeper: an element is open until an end tag of its name closes it and
    those opened inside it (`<div/>` opens a div, a stray end tag closes nothing)."""
    open_names: list[str] = []
    held: dict[str, int] = {}  # how many of each name are open: a stray end tag costs O(1)
    for count, match in enumerate(_TAG_START.finditer(_without_comments(html))):
        if count >= MAX_TAGS:
            return True
        name = match[2].lower()
        if name in _FLAT:
            continue
        if not match[1]:
            open_names.append(name)
            held[name] = held.get(name, 0) + 1
            if len(open_names) > limit:
                return True
        elif held.get(name):
            while True:  # what it closes was opened inside it: closed too
                closed = open_names.pop()
                held[closed] -= 1
                if closed == name:
                    break
    return False


def _without_comments(html: str) -> str:
    """The HTML without its comments (an end tag inside one closes nothing); one left
    open runs to the end, as a browser reads it. That one is cut first, so that every
    comment the expression meets ends, and each is read once."""
    last_end = html.rfind("-->")
    left_open = html.find("<!--", last_end + 3 if last_end != -1 else 0)
    if left_open != -1:
        html = html[:left_open]
    return _COMMENT.sub("", html)

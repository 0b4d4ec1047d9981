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


def html_to_text(html: str) -> str:
    """The text a reader sees, lines kept, runs of blank lines made one."""
    text = get_text(html)
    text = _TRAILING.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def sanitised_html(html: str) -> str:
    return nh3.clean(html, url_schemes=URL_SCHEMES, clean_content_tags={"script", "style"})

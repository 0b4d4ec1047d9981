"""HTML too deep to sanitise in time is not kept: the depth is read as a browser would
nest the elements, or deeper, never shallower, whatever the markup does to hide it; and
the HTML of real mail (the test corpus) is kept."""

from __future__ import annotations

from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path

import pytest

from supportdesk.domain.email.headers import POLICY
from supportdesk.domain.email.html import MAX_DEPTH, MAX_TAGS, sanitised_html

CORPUS = Path(__file__).parents[1] / "email" / "corpus"
LEVELS = MAX_DEPTH + 1


@pytest.mark.parametrize(
    "html",
    [
        "<div>" * LEVELS + "x" + "</div>" * LEVELS,
        "<div>" * LEVELS,  # never closed
        "<div/>" * LEVELS,  # a `/` closes no div
        "<div></i>" * LEVELS,  # an end tag of nothing open closes nothing
        '<div title="<">' * LEVELS,  # a `<` in an attribute
        '<div title=">">' * LEVELS,
        "<div><!--</div>-->" * LEVELS,  # an end tag in a comment
        "<DIV>" * LEVELS,
        "<b></b>" * (MAX_TAGS // 2 + 1),  # shallow, but too many tags to read
    ],
)
def test_html_too_deep_or_too_long_is_not_kept(html: str) -> None:
    assert sanitised_html(html) is None


@pytest.mark.parametrize(
    "html",
    [
        "<div>" * (MAX_DEPTH - 1) + "x" + "</div>" * (MAX_DEPTH - 1),
        "<p>a" * 5_000 + "<li>b" * 5_000 + "<td>c<tr>" * 5_000 + "<br>" * 5_000,
        "<b><i>x</b></i>" * 5_000,  # misnested, as careless editors write
        "<!--" + "<div>" * LEVELS,  # all of it one comment, left open
    ],
)
def test_html_a_browser_nests_shallower_is_kept(html: str) -> None:
    assert sanitised_html(html) is not None


def _html_parts(path: Path) -> list[str]:
    mail = message_from_bytes(path.read_bytes(), policy=POLICY)
    assert isinstance(mail, EmailMessage)
    return [
        str(part.get_content())
        for part in mail.walk()
        if part.get_content_type() == "text/html" and not part.is_attachment()
    ]


def test_the_html_of_every_corpus_message_is_kept() -> None:
    parts = [html for path in sorted(CORPUS.glob("*.eml")) for html in _html_parts(path)]

    assert len(parts) >= 5
    assert all(sanitised_html(html) is not None for html in parts)

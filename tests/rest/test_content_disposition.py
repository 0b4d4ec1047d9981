"""The Content-Disposition of a download: the name as sent, and an ASCII stand-in that is
one file name, never a path."""

from __future__ import annotations

import pytest

from supportdesk.rest.attachments import content_disposition


@pytest.mark.parametrize(
    ("name", "stand_in"),
    [
        ("Überweisung März.png", "Uberweisung Marz.png"),
        ("℀.txt", "_.txt"),  # NFKD makes "a/c" of the account-of sign
        ('say "hi"\\.txt', "say _hi__.txt"),
        ("日本.pdf", "__.pdf"),
    ],
)
def test_the_ascii_stand_in_is_one_plain_name(name: str, stand_in: str) -> None:
    header = content_disposition(name)

    assert header.startswith(f"attachment; filename=\"{stand_in}\"; filename*=UTF-8''")

"""Reading mail: what would cost the parser seconds is counted in the bytes and refused
before the parser sees them."""

from __future__ import annotations

import pytest

from supportdesk.domain.email import reading
from supportdesk.domain.email.reading import UnreadableMail, read_mail

HEAD = b"From: eve@customer.test\r\nTo: support@acme.test\r\nSubject: Hi\r\n"


@pytest.fixture
def parser_unused(monkeypatch: pytest.MonkeyPatch) -> None:
    def parse(raw: bytes, **_: object) -> None:
        raise AssertionError("the parser was called")

    monkeypatch.setattr(reading, "message_from_bytes", parse)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (
            HEAD.replace(b"Hi", b"\r\n ".join([b"=?utf-8?q?a?="] * 1001)) + b"\r\nHello.\r\n",
            "more than 1000 encoded words",
        ),
        (
            HEAD + b"X-Filler: " + b"x" * 100 * 1024 + b"\r\n\r\nHello.\r\n",
            "a header block over 100 KiB",
        ),
        (
            HEAD + b"Content-Type: multipart/mixed; boundary=b\r\n\r\n" + b"--b\r\rx\r" * 501,
            "more than 500 MIME parts",
        ),
    ],
    ids=["encoded words", "header block", "parts ended by a bare CR"],
)
@pytest.mark.usefixtures("parser_unused")
def test_costly_mail_is_refused_before_it_is_parsed(raw: bytes, reason: str) -> None:
    with pytest.raises(UnreadableMail) as refused:
        read_mail(raw)

    assert str(refused.value) == reason


def test_mail_at_the_limits_is_read() -> None:
    subject = b"\r\n ".join([b"=?utf-8?q?caf=C3=A9?="] * 1000)
    raw = HEAD.replace(b"Hi", subject) + b"X-Filler: " + b"x" * 70 * 1024 + b"\r\n\r\nHello.\r\n"

    read = read_mail(raw)

    assert read.subject.startswith("cafécafé") and read.text == "Hello."


def test_of_many_recipients_the_first_100_are_kept() -> None:
    cc = b"Cc: " + b", ".join(b"p%d@elsewhere.test" % i for i in range(150)) + b"\r\n"

    read = read_mail(HEAD + cc + b"\r\nHello.\r\n")

    assert read.recipients[:2] == ("support@acme.test", "p0@elsewhere.test")
    assert len(read.recipients) == 100

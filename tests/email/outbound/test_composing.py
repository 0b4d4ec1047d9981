"""What no person's text can do to outbound mail's headers, and the SMTP URL's password
that is never shown."""

from __future__ import annotations

from datetime import UTC, datetime
from email import message_from_bytes, policy

import pytest

from supportdesk.config import Settings
from supportdesk.dispatch.smtp_url import SmtpUrlError, smtp_server
from supportdesk.domain.email.composing import Outgoing, compose, reply_subject
from supportdesk.domain.email.headers import POLICY


def _mail(**changes: object) -> bytes:
    values: dict[str, object] = {
        "sender_address": "support@acme.example",
        "sender_name": "Acme Support",
        "recipient": "ada@client.example",
        "reply_to": "support+t1-abcdefghijklmnop@acme.example",
        "message_key": "msg_01@acme.example",
        "thread": (),
        "subject": reply_subject(1, "Hello"),
        "body": "Hi.",
        "sent_at": datetime(2026, 11, 27, tzinfo=UTC),
        **changes,
    }
    return compose(Outgoing(**values)).as_bytes()  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "changes",
    [
        {"subject": reply_subject(1, "Hi\r\nBcc: victim@evil.example")},
        {"subject": "Hi\nBcc: victim@evil.example"},
        {"sender_name": "Acme\r\nBcc: victim@evil.example"},
    ],
)
def test_a_line_break_in_a_subject_or_a_name_makes_no_header(changes: dict[str, str]) -> None:
    raw = _mail(**changes)
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["Bcc"] is None
    assert b"\nBcc:" not in raw
    assert [key for key in parsed if key.lower() == "to"] == ["To"]


def test_a_long_thread_keeps_its_first_and_latest_ids() -> None:
    thread = [f"m{n}@x.example" for n in range(40)]
    parsed = message_from_bytes(_mail(thread=thread), policy=policy.default)
    references = str(parsed["References"]).split()
    assert references[0] == "<m0@x.example>" and references[-1] == "<m39@x.example>"
    assert len(references) == 20
    assert parsed["In-Reply-To"] == "<m39@x.example>"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("Subject", "Re: [#7] Invoice exported twice"),
        ("Subject", "Re: [#8] " + "long words " * 9),
        ("Subject", "Re: [#9] Zoë's order"),
        ("Subject", "Re: [#10] =?utf-8?q?looks_encoded?="),
        ("Subject", "Re: [#11] a;b:c<d>e(f)\\g"),
        ("From", '"Doe, John" <support@acme.example>'),
        ("From", "Zoë Müller <support@acme.example>"),
        ("From", '"He said \\"hi\\"" <support@acme.example>'),
        ("To", '"quoted local"@client.example'),
        ("Reply-To", "Acme Support <support+t1-abcdefghijklmnopqrstuvwxyz0123@acme.example>"),
        ("Message-ID", "<msg_01@acme.example>"),
        ("References", "<a@x.example> <b@x.example>"),
        ("Date", "Fri, 27 Nov 2026 00:00:00 +0000"),
        ("Auto-Submitted", "auto-replied"),
    ],
)
def test_headers_are_written_as_the_standard_policy_writes_them(name: str, value: str) -> None:
    # Ours writes a header that fits its line as it reads, without the standard refold.
    ours = POLICY.fold_binary(name, POLICY.header_factory(name, value))
    standard = policy.default.fold_binary(name, policy.default.header_factory(name, value))
    assert ours == standard


def test_the_smtp_urls_password_is_never_shown() -> None:
    url = "smtp://mailer:pa%40ss-w0rd@smtp.acme.example:587?starttls=true"
    server = smtp_server(url)
    assert (server.username, server.password) == ("mailer", "pa@ss-w0rd")
    assert (server.host, server.port, server.tls, server.starttls) == (
        "smtp.acme.example", 587, False, True,
    )  # fmt: skip
    for shown in (str(server), repr(server), repr(Settings(smtp_url=url))):
        assert "pa@ss" not in shown and "pa%40ss" not in shown
    tls = smtp_server("smtps://u:p@smtp.acme.example")
    assert (tls.port, tls.tls, tls.starttls) == (465, True, False)


@pytest.mark.parametrize(
    "url", ["http://u:secret@host", "smtp://", "smtp://u:secret@host:99999", "smtp://h?starttls=x"]
)
def test_a_bad_smtp_url_is_refused_without_its_password(url: str) -> None:
    with pytest.raises(SmtpUrlError) as refused:
        smtp_server(url)
    assert "secret" not in str(refused.value)

"""What no person's text can do to outbound mail's headers, and the SMTP URL's password
that is never shown."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from email import message_from_bytes, policy
from email.header import decode_header, make_header
from email.utils import getaddresses

import pytest

from supportdesk.config import Settings
from supportdesk.dispatch.smtp_url import SmtpUrlError, smtp_server
from supportdesk.domain.email.composing import Outgoing, compose, one_line, reply_subject
from supportdesk.domain.email.headers import POLICY

REPLY_TO = "support+t1-abcdefghijklmnop@acme.example"


def _mail(**changes: object) -> bytes:
    values: dict[str, object] = {
        "sender_address": "support@acme.example",
        "sender_name": "Acme Support",
        "recipient": "ada@client.example",
        "reply_to": REPLY_TO,
        "message_key": "msg_01@acme.example",
        "thread": (),
        "subject": reply_subject(1, "Hello"),
        "body": "Hi.",
        "sent_at": datetime(2026, 11, 27, tzinfo=UTC),
        **changes,
    }
    return compose(Outgoing(**values))  # type: ignore[arg-type]


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
    ("name", "subject"),
    [
        ("Acme Support", "Re: [#7] Invoice exported twice"),
        ("Doe, John", "Re: [#8] " + "long words " * 12),
        ('He said "hi" \\ left', "Re: [#9] Zoë's order, ½ shipped"),
        ("Zoë Müller", "Re: [#10] =?utf-8?q?looks_encoded?="),
        ("a;b:c<d>e(f)@g", "Re: [#11] a;b:c<d>e(f)\\g"),
        ("Müller & Söhne Kundendienst", "Re: [#12] 請求書が二重に"),
        ("Support of a rather long company name " * 3, "Re: [#13] tab\there"),
        ("Zoë " * 8, "Re: [#14] " + "ü" * 150),
        ("Bell\x07 and escape\x1b", "Re: [#15] bell\x07"),
        # A name that must not add an address, however it is folded.
        ("Support of the Acme Corporation =? <ceo@bank.example>, x", "Re: [#16] Hi"),
        ("Support and Billing of the Acme Corporation Europe, <ceo@bank.example>", "Re: [#17]"),
    ],
)
def test_names_and_subjects_read_back_as_they_were_written(name: str, subject: str) -> None:
    thread = [f"msg_{n:02}abcdefghijklmnopqrstuvwxyz@acme.example" for n in range(6)]
    raw = _mail(sender_name=name, subject=subject, thread=thread)
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["Subject"] == one_line(subject)
    as_written = message_from_bytes(raw, policy=policy.compat32)
    for field, address in [("From", "support@acme.example"), ("Reply-To", REPLY_TO)]:
        # One address, whatever the name: for the standard library's reader, and for one
        # that drops the space between encoded words as RFC 2047 asks (Python's own keeps
        # it when the words are in a name).
        [mailbox] = parsed[field].addresses
        assert mailbox.addr_spec == address and not parsed[field].defects
        unfolded = re.sub(r"\r?\n(?=[ \t])", "", as_written[field])
        [(written_name, written_address)] = getaddresses([unfolded])
        assert written_address == address
        assert str(make_header(decode_header(written_name))) == one_line(name)
    assert str(parsed["References"]).split() == [f"<{key}>" for key in thread]
    head = raw.split(b"\n\n", 1)[0]
    assert head.isascii() and max(len(line) for line in head.split(b"\n")) <= 78
    assert all(len(word) <= 75 for word in re.findall(rb"=\?[^?]+\?[bq]\?[^?]*\?=", head))


@pytest.mark.parametrize(
    "changes",
    [
        {"recipient": "ada@client.example\nBcc: victim@evil.example"},
        {"reply_to": "support@acme.example\r\nBcc: victim@evil.example"},
        # Read as two addresses, or as "ceo" that a relay completes with its own domain.
        {"recipient": "ceo,x@evil.example"},
        {"recipient": "ceo(x)@evil.example"},
        # Would need SMTPUTF8.
        {"recipient": "zoë@client.example"},
        {"sender_address": "zoë@acme.example"},
    ],
)
def test_an_address_that_cannot_be_written_as_it_is_is_refused(changes: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="cannot be written"):
        _mail(**changes)


def test_an_odd_id_in_the_thread_is_left_out_and_the_rest_kept() -> None:
    thread = ["m0@acme.example", "é@client.example", "=?x?q?y?=@x.example", "m3@acme.example"]
    raw = _mail(thread=thread)
    parsed = message_from_bytes(raw, policy=policy.default)
    assert parsed["References"] == "<m0@acme.example> <m3@acme.example>"
    assert b"References: <m0@acme.example> <m3@acme.example>" in raw
    assert parsed["In-Reply-To"] == "<m3@acme.example>"


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
    "url",
    [
        "http://u:secret@host",
        "smtp://",
        "smtp://u:secret@host:99999",
        "smtp://h?starttls=x",
        "smtp://u:secret@host:587",  # the password would cross in clear
        "smtp://u:secret@host:587?starttls=false",
    ],
)
def test_a_bad_smtp_url_is_refused_without_its_password(url: str) -> None:
    with pytest.raises(SmtpUrlError) as refused:
        smtp_server(url)
    assert "secret" not in str(refused.value)

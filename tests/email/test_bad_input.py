"""Bad mail at the doors: a clear refusal, or the message parked (kept raw, with why),
never a crash, a 500 or half a record."""

from __future__ import annotations

import base64
import io
import smtplib
import zipfile

import pytest
from sqlalchemy import func, select

from supportdesk.db.tables import attachments, message_emails
from tests.email.conftest import MailboxFixture
from tests.email.doors import post_mail, smtp_send
from tests.email.kept import kept_mail
from tests.email.test_corpus import threads

pytestmark = pytest.mark.filterwarnings("ignore::ResourceWarning")


def _mail(headers: str, body: str = "Hello.\n") -> bytes:
    return (headers.strip("\n") + "\n\n" + body).encode()


def _headers(mailbox: MailboxFixture, **extra: str) -> str:
    lines = {
        "From": "Eve <eve@customer.test>",
        "To": mailbox.address,
        "Subject": "A question",
        "Message-ID": "<bad-input@customer.test>",
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=utf-8",
        **extra,
    }
    return "\n".join(f"{name}: {value}" for name, value in lines.items() if value)


def test_bytes_that_are_no_mail_are_parked(mailbox: MailboxFixture) -> None:
    raw = b"\x00\xff\xfe not a message at all \x00\n\x89PNG garbage"

    answer = post_mail(mailbox.workspace.server, mailbox.token, raw)

    assert answer.status_code == 202, answer.text
    assert answer.json()["status"] == "parked"
    [kept] = kept_mail(mailbox)
    assert (kept.status, kept.raw) == ("parked", raw)
    assert threads(mailbox) == []


def test_mail_without_a_usable_sender_is_parked(mailbox: MailboxFixture, smtp_port: int) -> None:
    raw = _mail(_headers(mailbox, From="undisclosed-recipients:;"))

    assert smtp_send(smtp_port, "", [mailbox.address], raw.replace(b"\n", b"\r\n")) == {}

    [kept] = kept_mail(mailbox)
    assert kept.status == "parked" and kept.reason == "no usable From address"
    assert threads(mailbox) == []


def test_a_broken_multipart_is_read_as_far_as_it_goes(mailbox: MailboxFixture) -> None:
    headers = _headers(mailbox, **{"Content-Type": 'multipart/mixed; boundary="never-closed"'})
    body = "--never-closed\nContent-Type: text/plain\n\nThe part before the end.\n--never-cl"

    answer = post_mail(mailbox.workspace.server, mailbox.token, _mail(headers, body))

    assert answer.status_code == 202, answer.text
    [issue] = threads(mailbox)
    assert "The part before the end." in issue["messages"]["edges"][0]["node"]["body"]


def test_header_injection_in_subject_and_name_stays_one_line(mailbox: MailboxFixture) -> None:
    headers = _headers(
        mailbox,
        From="=?utf-8?q?Eve=0D=0ABcc:_victim@example.test?= <eve@customer.test>",
        Subject="=?utf-8?q?Refund=0D=0ABcc:_victim@example.test=0D=0A=0D=0Abody?=",
    )

    answer = post_mail(mailbox.workspace.server, mailbox.token, _mail(headers))

    assert answer.json()["status"] == "created"
    [issue] = threads(mailbox)
    assert issue["subject"] == "Refund Bcc: victim@example.test body"
    message = issue["messages"]["edges"][0]["node"]
    assert message["senderName"] == "Eve Bcc: victim@example.test"
    assert issue["requester"]["email"] == "eve@customer.test"


def test_a_zip_bomb_declared_small_is_kept_as_sent_never_unpacked(
    mailbox: MailboxFixture,
) -> None:
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("zeros.bin", b"\0" * 50_000_000)
    bomb = packed.getvalue()

    headers = _headers(mailbox, **{"Content-Type": "multipart/mixed; boundary=z"})
    body = (
        "--z\nContent-Type: text/plain\n\nLogs attached.\n"
        '--z\nContent-Type: application/zip; name="logs.zip"\n'
        'Content-Disposition: attachment; filename="logs.zip"; size=120\n'
        "Content-Transfer-Encoding: base64\n\n"
        f"{base64.encodebytes(bomb).decode()}--z--\n"
    )

    answer = post_mail(mailbox.workspace.server, mailbox.token, _mail(headers, body))

    assert answer.json()["status"] == "created"
    [issue] = threads(mailbox)
    [file] = issue["messages"]["edges"][0]["node"]["attachments"]
    assert (file["fileName"], file["sizeBytes"]) == ("logs.zip", len(bomb))
    assert len(bomb) < 100_000


def test_a_file_name_that_reorders_its_text_loses_the_reordering(mailbox: MailboxFixture) -> None:
    # U+202E (right-to-left override), RFC 2231-encoded: shown as "invoiceexe.jpg".
    headers = _headers(mailbox, **{"Content-Type": "multipart/mixed; boundary=z"})
    body = (
        "--z\nContent-Type: text/plain\n\nThe invoice.\n"
        "--z\nContent-Type: application/octet-stream\n"
        "Content-Disposition: attachment; filename*=utf-8''invoice%E2%80%AEgpj.exe\n\n"
        "MZ\n--z--\n"
    )

    answer = post_mail(mailbox.workspace.server, mailbox.token, _mail(headers, body))

    assert answer.json()["status"] == "created"
    [issue] = threads(mailbox)
    [file] = issue["messages"]["edges"][0]["node"]["attachments"]
    assert file["fileName"] == "invoicegpj.exe"


def _files_of(mailbox: MailboxFixture) -> int:
    """Attachment rows of the workspace, whether a message took them or not."""
    query = select(func.count()).where(attachments.c.workspace_id == mailbox.workspace.id)

    async def count() -> int:
        async with mailbox.workspace.server.db.read() as connection:
            return int(await connection.scalar(query))

    return mailbox.workspace.server.call(count())


def test_automatic_mail_the_loop_guard_drops_stores_none_of_its_files(
    mailbox: MailboxFixture,
) -> None:
    def auto_reply(n: int, files: int) -> bytes:
        headers = _headers(
            mailbox,
            From="Robot <robot@bots.example>",
            **{
                "Message-ID": f"<auto-{n}@bots.example>",
                "Auto-Submitted": "auto-replied",
                "Content-Type": "multipart/mixed; boundary=z",
            },
        )
        parts = "".join(
            "--z\nContent-Type: application/octet-stream\n"
            f'Content-Disposition: attachment; filename="f{i}.bin"\n\nbytes {i}\n'
            for i in range(files)
        )
        return _mail(headers, f"--z\nContent-Type: text/plain\n\nOut of office.\n{parts}--z--\n")

    first = post_mail(mailbox.workspace.server, mailbox.token, auto_reply(1, 1))
    second = post_mail(mailbox.workspace.server, mailbox.token, auto_reply(2, 5))

    assert first.json()["status"] == "created"
    assert second.json()["status"] == "ignored"
    assert _files_of(mailbox) == 1


def test_a_message_over_the_limit_is_refused_and_nothing_is_kept(
    mailbox: MailboxFixture, smtp_port: int
) -> None:
    limit = mailbox.workspace.server.settings.email_max_bytes
    line = b"x" * 998 + b"\r\n"
    raw = _mail(_headers(mailbox)).replace(b"\n", b"\r\n") + line * (30_000_000 // len(line))
    assert len(raw) > 30_000_000 > limit

    # A client that declares the size is refused at MAIL FROM, one that does not at DATA.
    with pytest.raises(smtplib.SMTPSenderRefused) as declared:
        smtp_send(smtp_port, "eve@customer.test", [mailbox.address], raw)
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as client:
        client.ehlo()
        client.mail("eve@customer.test")
        client.rcpt(mailbox.address)
        undeclared = client.data(raw)
    answer = post_mail(mailbox.workspace.server, mailbox.token, raw)

    assert declared.value.smtp_code == 552 and undeclared[0] == 552
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "PAYLOAD_TOO_LARGE"
    assert kept_mail(mailbox) == [] and threads(mailbox) == []


def _costly(kind: str, mailbox: MailboxFixture) -> tuple[bytes, str]:
    """Mail that would cost the parser seconds or gigabytes, and the reason it is parked."""
    if kind == "encoded words":
        # Each line is short, so the listener's line limit lets it through.
        words = "\r\n ".join(["=?utf-8?q?a?="] * 20_000)
        headers = _headers(mailbox, Subject=words).replace("\n", "\r\n")
        return (headers + "\r\n\r\nHello.\r\n").encode(), "more than 1000 encoded words"
    if kind == "header block":
        cc = "Cc: " + ", ".join(f"person{i}@elsewhere.test" for i in range(40)) + "\r\n"
        headers = _headers(mailbox).replace("\n", "\r\n") + "\r\n" + cc * 200
        return (headers + "\r\nHello.\r\n").encode(), "a header block over 100 KiB"
    headers = _headers(mailbox, **{"Content-Type": "multipart/mixed; boundary=b"})
    if kind == "ten thousand parts":
        parts = "".join(
            f"--b\r\nContent-Type: text/plain\r\n\r\npart {i}\r\n" for i in range(10_000)
        )
    else:  # delimiter lines ended by a bare CR, which the parser splits on too
        parts = ("x\r" + "--b\r\rx\r" * 120 + "\r\n") * 20
    return (headers.replace("\n", "\r\n") + "\r\n\r\n" + parts + "--b--\r\n").encode(), (
        "more than 500 MIME parts"
    )


@pytest.mark.parametrize(
    "kind", ["ten thousand parts", "bare CR parts", "encoded words", "header block"]
)
@pytest.mark.parametrize("door", ["smtp", "http"])
def test_mail_that_would_cost_the_parser_seconds_is_parked_unread(
    mailbox: MailboxFixture, smtp_port: int, door: str, kind: str
) -> None:
    raw, reason = _costly(kind, mailbox)

    if door == "http":
        answer = post_mail(mailbox.workspace.server, mailbox.token, raw)
        assert (answer.status_code, answer.json()["status"]) == (202, "parked")
    else:
        assert smtp_send(smtp_port, "eve@customer.test", [mailbox.address], raw) == {}

    [kept] = kept_mail(mailbox)
    assert (kept.status, kept.reason, kept.raw) == ("parked", reason, raw)
    assert threads(mailbox) == []


def _kept_html(mailbox: MailboxFixture) -> list[str | None]:
    server = mailbox.workspace.server
    query = (
        select(message_emails.c.html)
        .where(message_emails.c.workspace_id == mailbox.workspace.id)
        .order_by(message_emails.c.id)
    )

    async def read() -> list[str | None]:
        async with server.db.read() as connection:
            return [row[0] for row in await connection.execute(query)]

    return server.call(read())


def test_html_nested_too_deep_to_sanitise_is_filed_without_it(
    mailbox: MailboxFixture, smtp_port: int
) -> None:
    # 200,000 levels (2.2 MB): sanitising it took minutes of a worker's CPU, and every
    # retry of the sender paid again. The text part stands for it; a shallow HTML is kept.
    deep = ("<div>" * 100 + "\n") * 2_000 + "Deep" + ("</div>" * 100 + "\n") * 2_000
    shallow = "<div><p>Hello <b>there</b></p></div>"
    for number, html in enumerate((deep, shallow)):
        headers = _headers(
            mailbox,
            **{
                "Content-Type": "multipart/alternative; boundary=b",
                "Message-ID": f"<nested-{number}@customer.test>",
                "Subject": f"Nested {number}",
            },
        )
        body = (
            "--b\nContent-Type: text/plain\n\nThe text part.\n"
            f"--b\nContent-Type: text/html\n\n{html}\n--b--\n"
        )
        raw = _mail(headers, body).replace(b"\n", b"\r\n")
        assert smtp_send(smtp_port, "eve@customer.test", [mailbox.address], raw) == {}

    assert [kept.status for kept in kept_mail(mailbox)] == ["created", "created"]
    assert [issue["messages"]["edges"][0]["node"]["body"] for issue in threads(mailbox)] == [
        "The text part.",
        "The text part.",
    ]
    deep_html, shallow_html = _kept_html(mailbox)
    assert deep_html is None
    assert shallow_html is not None and "<b>there</b>" in shallow_html

"""The mail the e-mail scenario sends: about 20 KB each, multipart/alternative (a text part
and an HTML part, as Gmail, Outlook and Apple Mail send), a reply of a few lines above a
quoted history. Every message has a Message-ID of its own; every other one answers the
one before it from the same sender (In-Reply-To, References), so half open an issue and
half join one. The HTML is quoted-printable, in lines of 76 characters, as mailers send it
(SMTP takes lines of at most 1,000)."""

from __future__ import annotations

import argparse
import asyncio
import html
import json
import quopri
import sys
import time
from datetime import UTC, datetime
from email.utils import format_datetime

import aiosmtplib

# A support thread's earlier turns, quoted under each new message.
_HISTORY = [
    "Hello, thank you for writing to us. We looked at your account and found that the "
    "invoice for last month was sent twice: once on the first and once on the third, "
    "because the payment provider retried a request that had already gone through.",
    "We have refunded the second charge; it takes three to five working days to show on "
    "your statement. If it does not arrive by then, please answer this message with the "
    "last four digits of the card and we will trace it with the provider.",
    "In the meantime the export you asked about is attached to your account's settings "
    "page under Billing, Documents. It holds every invoice of the past twelve months as a "
    "PDF and a CSV file with the amounts, the tax and the reference of each payment.",
]
_NEW = (
    "Thanks for the quick answer. The refund arrived this morning, but the export of the "
    "invoices still shows the second charge as paid. Our accountant needs the corrected "
    "file before Friday: could you send it again once the record is fixed?"
)
TARGET_BYTES = 21_500


def _quoted_text(turns: int) -> str:
    lines = []
    for n in range(turns):
        lines.append(f"On Mon, 2 Nov 2026 at 1{n % 10}:0{n % 6} Support <support@x> wrote:")
        for paragraph in _HISTORY:
            lines += ["> " + line for line in _wrapped(paragraph)] + [">"]
    return "\n".join(lines)


def _wrapped(paragraph: str, width: int = 72) -> list[str]:
    lines, line = [], ""
    for word in paragraph.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line]


def _quoted_html(turns: int) -> str:
    parts = []
    for n in range(turns):
        body = "".join(f"<p>{html.escape(p)}</p>" for p in _HISTORY)
        parts.append(
            f'<div class="gmail_quote"><div dir="ltr">On Mon, 2 Nov 2026 at 1{n % 10}:0{n % 6} '
            "Support &lt;support@x&gt; wrote:<br></div>"
            '<blockquote class="gmail_quote" style="margin:0 0 0 .8ex;'
            f'border-left:1px solid #ccc;padding-left:1ex">{body}'
        )
    return "".join(parts) + "</blockquote></div>" * turns


def _turns() -> int:
    """How many quoted turns make the whole message about TARGET_BYTES."""
    one = len(_quoted_text(1)) + len(_quoted_html(1))
    return max(1, (TARGET_BYTES - 1500) // one)


TURNS = _turns()
QUOTED_TEXT = _quoted_text(TURNS)
QUOTED_HTML = _quoted_html(TURNS)


def message_id(sender: int, n: int, run: str) -> str:
    return f"<bench-{run}-{sender}-{n}@customer{sender % 50}.example.com>"


def message(to: str, sender: int, n: int, run: str) -> bytes:
    """The `n`th message of sender number `sender`: even ones open an issue, odd ones
    answer the one before."""
    address = f"customer{sender}@customer{sender % 50}.example.com"
    boundary = f"b{sender}x{n}"
    headers = [
        f"From: Customer {sender} <{address}>",
        f"To: Support <{to}>",
        f"Subject: {'Re: ' if n % 2 else ''}Invoice exported twice ({sender}/{n - n % 2})",
        f"Message-ID: {message_id(sender, n, run)}",
        f"Date: {format_datetime(datetime.now(UTC))}",
        "MIME-Version: 1.0",
        f'Content-Type: multipart/alternative; boundary="{boundary}"',
    ]
    if n % 2:
        earlier = message_id(sender, n - 1, run)
        headers += [f"In-Reply-To: {earlier}", f"References: {earlier}"]
    text = f"{_NEW}\n\nCustomer {sender}\n\n{QUOTED_TEXT}\n"
    page = f'<div dir="ltr"><p>{_NEW}</p><p>Customer {sender}</p></div><br>{QUOTED_HTML}'
    body = [
        f"--{boundary}",
        'Content-Type: text/plain; charset="UTF-8"',
        "",
        text,
        f"--{boundary}",
        'Content-Type: text/html; charset="UTF-8"',
        "Content-Transfer-Encoding: quoted-printable",
        "",
        quopri.encodestring(f"<html><body>{page}</body></html>".encode()).decode(),
        f"--{boundary}--",
        "",
    ]
    return "\r\n".join([*headers, "", *body]).replace("\r\n", "\n").replace("\n", "\r\n").encode()


async def _connection(
    port: int, to: str, first_sender: int, run: str, until: float, sent: list[float]
) -> int:
    """One SMTP connection kept open, as a relay keeps it: message after message (each
    timed in `sent`), two per sender number, until `until`. The count that failed."""
    failed = 0
    client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=60)
    await client.connect()
    try:
        sender, n = first_sender, 0
        while time.monotonic() < until:
            raw = message(to, sender, n, run)
            started = time.monotonic()
            try:
                await client.sendmail(f"customer{sender}@example.com", [to], raw)
                sent.append(time.monotonic() - started)
            except aiosmtplib.SMTPException as error:
                failed += 1
                if failed == 1:
                    print(f"refused: {error}", file=sys.stderr)
            sender, n = (sender, 1) if n == 0 else (sender + 1, 0)
    finally:
        client.close()
    return failed


async def send(port: int, to: str, connections: int, seconds: float, run: str) -> dict[str, float]:
    """`connections` concurrent SMTP connections sending for `seconds`: messages taken,
    failed, and the seconds it took."""
    sent: list[float] = []
    started = time.monotonic()
    until = started + seconds
    failures = await asyncio.gather(
        *(_connection(port, to, c * 1_000_000, run, until, sent) for c in range(connections))
    )
    elapsed = time.monotonic() - started
    sent.sort()
    return {
        "messages": len(sent),
        "failed": sum(failures),
        "seconds": elapsed,
        "p50_ms": sent[len(sent) // 2] * 1000 if sent else 0.0,
        "p99_ms": sent[int(len(sent) * 0.99)] * 1000 if sent else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description="send the bench's mail over SMTP")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--to", required=True)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--run", required=True, help="makes every Message-ID new")
    args = parser.parse_args()
    done = asyncio.run(send(args.port, args.to, args.connections, args.seconds, args.run))
    print(json.dumps(done))


if __name__ == "__main__":
    main()

"""`POST /v1/inbound-email` (docs/email.md): a provider that forwards raw mail sends it here,
`Content-Type: message/rfc822`, with the mailbox's inbound token as its Bearer. The body
goes into the same pipeline as the SMTP listener's mail.

202 with what became of it (`created`, `appended`, `ignored` or `parked`), 200 for a
Message-ID the mailbox had already; 401 for a missing or unknown token, 413 over the size
limit (nothing kept), 415 for another media type."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from supportdesk.domain.email.intake import MailIntake
from supportdesk.domain.email.pipeline import MailboxGone, Received, TooLarge
from supportdesk.domain.mailboxes import Mailbox, mailbox_for_token
from supportdesk.http.admission import Admission
from supportdesk.http.requests import HttpProblem
from supportdesk.rest import errors
from supportdesk.rest.errors import RestError, json_response

MEDIA_TYPE = "message/rfc822"
# The WWW-Authenticate of a refused token: its realm tells it from an API key's refusal.
CHALLENGE = 'Bearer realm="inbound-email"'


def _unauthenticated(reason: str, message: str) -> RestError:
    return RestError(
        401,
        "UNAUTHENTICATED",
        message,
        headers={"WWW-Authenticate": CHALLENGE},
        reason=reason,
    )


async def _mailbox(request: Request, intake: MailIntake, admission: Admission) -> Mailbox:
    """The mailbox whose token the request carries; a refusal counts against the client's
    address as a key's does (429 past the limit), so tokens cannot be guessed quickly."""
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    mailbox = None
    if token and scheme.lower() == "bearer":
        mailbox = await mailbox_for_token(intake.db, token.strip())
    if mailbox is None:
        await admission.note_failed_authentication(request)
        if not token:
            raise _unauthenticated("missing", "Send the mailbox's inbound token as a Bearer.")
        raise _unauthenticated("invalid", "This is no mailbox's inbound token.")
    return mailbox


async def _body(request: Request, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise _too_large(limit)
    received = bytearray()
    async for chunk in request.stream():
        received += chunk
        if len(received) > limit:
            raise _too_large(limit)
    return bytes(received)


def _too_large(limit: int) -> RestError:
    return RestError(413, "PAYLOAD_TOO_LARGE", f"A message takes at most {limit} bytes.")


def received_json(received: Received) -> dict[str, object]:
    return {
        "id": received.id,
        "status": received.status,
        "issue_id": received.issue_id,
        "message_id": received.message_id,
        "reason": received.reason,
        "duplicate": received.duplicate,
    }


async def inbound_email(request: Request, admission: Admission) -> Response:
    intake: MailIntake = request.app.state.mail
    try:
        mailbox = await _mailbox(request, intake, admission)
        media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if media_type != MEDIA_TYPE:
            raise RestError(415, "UNSUPPORTED_MEDIA_TYPE", f"Send the raw mail as {MEDIA_TYPE}.")
        raw = await _body(request, intake.max_message_bytes)
        if not raw.strip():
            raise errors.bad_request("The body is empty; send the raw message.")
        received = await intake.receive(mailbox, raw, "http")
    except HttpProblem as problem:
        return errors.of_problem(problem).response()
    except RestError as error:
        return error.response()
    except TooLarge:
        return _too_large(intake.max_message_bytes).response()
    except MailboxGone:
        # Deleted while the message arrived: its token is no mailbox's any more.
        return _unauthenticated("invalid", "This is no mailbox's inbound token.").response()
    return json_response(received_json(received), 200 if received.duplicate else 202)

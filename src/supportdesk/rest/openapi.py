"""The OpenAPI 3.1 document of the REST interface, served at GET /v1/openapi.json.

Written as data; the limits, priorities and statuses come from the domain that enforces
them, the scopes from the permission table, so the document cannot drift from either.
"""

from __future__ import annotations

from typing import Any

from supportdesk import __version__
from supportdesk.auth.inbound_tokens import TOKEN_PREFIX_LENGTH
from supportdesk.auth.permissions import PERMISSIONS
from supportdesk.config import Settings
from supportdesk.domain.attachments import MAX_PER_MESSAGE
from supportdesk.domain.email.pipeline import APPENDED, CREATED, IGNORED, PARKED
from supportdesk.domain.events.catalogue import EVENT_TYPES
from supportdesk.domain.idempotency import MAX_KEY_LENGTH, RETENTION
from supportdesk.domain.issues.actions import MAX_BODY, MAX_NAME, MAX_SUBJECT
from supportdesk.domain.issues.workflow import DEFAULT_PRIORITY, PRIORITIES, STATUSES
from supportdesk.domain.pagination import MAX_PAGE_SIZE
from supportdesk.domain.validation import MAX_EMAIL
from supportdesk.http.admission import CHALLENGE as KEY_CHALLENGE
from supportdesk.rest.inbound_email import CHALLENGE as TOKEN_CHALLENGE
from supportdesk.rest.inbound_email import MEDIA_TYPE as MAIL_MEDIA_TYPE
from supportdesk.rest.schemas import IDEMPOTENCY_HEADER, INCLUDE_INTERNAL

# Rules no JSON Schema keyword states cheaply (a `pattern` makes generating examples from
# the document slow), and so said in words.
_NO_NUL = " No NUL character (U+0000)."


def _ref(kind: str, name: str) -> dict[str, str]:
    return {"$ref": f"#/components/{kind}/{name}"}


def _scopes(operation: str) -> str:
    return " or ".join(f"`{scope}`" for scope in sorted(PERMISSIONS[operation]))


def _schemas() -> dict[str, Any]:
    timestamp = {
        "type": "string",
        "format": "date-time",
        "description": "RFC 3339 in UTC with milliseconds, e.g. 2026-11-22T13:45:07.123Z.",
    }
    issue = {
        "id": {"type": "string", "description": "Opaque, e.g. iss_01JD…"},
        "ticket_number": {
            "type": "integer",
            "minimum": 1,
            "description": "Per workspace, from 1, gap-free; shared with GraphQL.",
        },
        "subject": {"type": "string"},
        "status": {"type": "string", "enum": list(STATUSES)},
        "priority": {"type": "string", "enum": list(PRIORITIES)},
        "created_at": timestamp,
    }
    return {
        "CreateIssueRequest": {
            "type": "object",
            "required": ["subject", "body", "requester_email"],
            "properties": {
                "subject": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_SUBJECT,
                    "description": f"1–{MAX_SUBJECT:,} characters after trimming white space."
                    + _NO_NUL,
                },
                "body": {
                    "type": "string",
                    "minLength": 1,
                    "maxLength": MAX_BODY,
                    "description": f"The first message: up to {MAX_BODY:,} characters, not "
                    "only white space." + _NO_NUL,
                },
                "requester_email": {
                    "type": "string",
                    "format": "email",
                    "maxLength": MAX_EMAIL,
                    "description": "One @ and a dotted domain name, and before the @ no "
                    'space and none of ,;:()<>[]"\\; the requester becomes a contact of the '
                    "workspace (matched ignoring case).",
                },
                "requester_name": {
                    "type": ["string", "null"],
                    "maxLength": MAX_NAME,
                    "description": "The first message's sender name (the e-mail without it); "
                    "trimmed." + _NO_NUL,
                },
                "priority": {
                    "type": ["string", "null"],
                    "enum": [*PRIORITIES, None],
                    "default": DEFAULT_PRIORITY,
                    "description": "Any case is accepted (`HIGH` is `high`); answered lowercase.",
                },
            },
            "description": "Other members are ignored.",
        },
        "Issue": {"type": "object", "required": list(issue), "properties": issue},
        "IssueWithMessages": {
            "type": "object",
            "required": [*issue, "messages"],
            "properties": {
                **issue,
                "messages": {
                    "type": "array",
                    "maxItems": MAX_PAGE_SIZE,
                    "items": _ref("schemas", "Message"),
                    "description": f"The thread, oldest first: its first {MAX_PAGE_SIZE} "
                    f"public messages, or with `{INCLUDE_INTERNAL}=true` its first "
                    f"{MAX_PAGE_SIZE} messages, internal notes included (GraphQL's "
                    "`issue.messages` pages through longer ones).",
                },
            },
        },
        "Message": {
            "type": "object",
            "required": ["id", "sender_name", "body", "visibility", "created_at", "attachments"],
            "properties": {
                "id": {"type": "string", "description": "Opaque, e.g. msg_01JD…"},
                "sender_name": {"type": "string"},
                "body": {"type": "string"},
                "visibility": {
                    "type": "string",
                    "enum": ["public", "internal"],
                    "description": "`internal`: a note of the team's; never show it to the "
                    "requester.",
                },
                "created_at": timestamp,
                "attachments": {
                    "type": "array",
                    "maxItems": MAX_PER_MESSAGE,
                    "items": _ref("schemas", "Attachment"),
                    "description": "The message's files, in the order they were uploaded.",
                },
            },
        },
        "Attachment": {
            "type": "object",
            "required": ["id", "file_name", "size_bytes", "content_type", "download_url"],
            "properties": {
                "id": {"type": "string", "description": "Opaque, e.g. att_01JD…"},
                "file_name": {"type": "string"},
                "size_bytes": {"type": "integer", "minimum": 1},
                "content_type": {
                    "type": "string",
                    "description": "Sniffed from the bytes, never taken from the client; "
                    "`application/octet-stream` when they show none.",
                },
                "download_url": {
                    "type": "string",
                    "description": "GET /v1/attachments/{id}/content on this server.",
                },
            },
        },
        "InboundEmailResult": {
            "type": "object",
            "required": ["id", "status", "issue_id", "message_id", "reason", "duplicate"],
            "properties": {
                "id": {"type": "string", "description": "The raw mail kept, e.g. inm_01JD…"},
                "status": {
                    "type": "string",
                    "enum": [CREATED, APPENDED, IGNORED, PARKED],
                    "description": f"`{CREATED}`: a new issue; `{APPENDED}`: it joined an "
                    f"issue; `{IGNORED}`: the loop guard stopped it (mail a machine sent, or "
                    f"our own come back); `{PARKED}`: it could not be read, and is kept raw for "
                    "a person to look at.",
                },
                "issue_id": {
                    "type": ["string", "null"],
                    "description": "The issue it made or joined (iss_…); null when ignored or "
                    "parked.",
                },
                "message_id": {
                    "type": ["string", "null"],
                    "description": "The issue's message it became (msg_…); null when none.",
                },
                "reason": {
                    "type": ["string", "null"],
                    "description": "Why it was ignored or parked, for people; may change.",
                },
                "duplicate": {
                    "type": "boolean",
                    "description": "True when the mailbox had this Message-ID already: the "
                    "answer is the first one's, and nothing new was done.",
                },
            },
        },
        "Error": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": _ref("schemas", "ErrorDetail")},
        },
        "ErrorDetail": {
            "type": "object",
            "required": ["code", "message", "fields"],
            "properties": {
                "code": {
                    "type": "string",
                    "description": "The GraphQL API's code: UNAUTHENTICATED, FORBIDDEN, "
                    "NOT_FOUND, RATE_LIMITED, BAD_REQUEST, PAYLOAD_TOO_LARGE, "
                    "UNSUPPORTED_MEDIA_TYPE, VALIDATION_FAILED, IDEMPOTENCY_KEY_MISMATCH, "
                    "METHOD_NOT_ALLOWED, INTERNAL_SERVER_ERROR; for an attachment's upload "
                    "SIZE_MISMATCH, UPLOAD_EXPIRED, ALREADY_UPLOADED.",
                },
                "message": {"type": "string", "description": "For people; may change."},
                "fields": {
                    "type": "array",
                    "items": _ref("schemas", "FieldError"),
                    "description": "Each refused input (VALIDATION_FAILED); empty otherwise.",
                },
                "reason": {
                    "type": "string",
                    "enum": ["missing", "malformed", "invalid", "revoked", "expired"],
                    "description": "Why the key was refused (401).",
                },
                "required_scopes": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "Any one of these scopes would allow the operation (403).",
                },
                "retry_after": {
                    "type": "integer",
                    "description": "Seconds until the limit allows again (429).",
                },
                "max_bytes": {"type": "integer", "description": "The body size limit (413)."},
                "request_id": {
                    "type": ["string", "null"],
                    "description": "The X-Request-Id to quote to an operator (500).",
                },
            },
        },
        "FieldError": {
            "type": "object",
            "required": ["field", "code"],
            "properties": {
                "field": {
                    "type": "string",
                    "description": f"A body member, `{IDEMPOTENCY_HEADER}` for the header, or "
                    f"`{INCLUDE_INTERNAL}` for GET /v1/issues/{{id}}'s query parameter.",
                },
                "code": {"type": "string", "enum": ["REQUIRED", "INVALID", "TOO_LONG"]},
            },
        },
    }


_HEADERS: dict[str, tuple[str, str]] = {
    "X-Request-Id": ("string", "The request's id: the caller's when sane, else a new one."),
    "X-RateLimit-Limit": ("integer", "Requests the key may make per minute."),
    "X-RateLimit-Remaining": ("integer", "Requests left in the current minute."),
    "X-RateLimit-Reset": ("integer", "When the current minute ends, in epoch seconds."),
    "Retry-After": ("integer", "Seconds to wait before trying again."),
    "WWW-Authenticate": ("string", "The scheme of the credential to send."),
    "Location": ("string", "The issue's address, /v1/issues/{id}."),
    "Allow": ("string", "The methods this path takes."),
    "Content-Disposition": (
        "string",
        "Always `attachment`, with the file's name as `filename` (ASCII) and `filename*`.",
    ),
    "X-Content-Type-Options": ("string", "Always `nosniff`."),
    "Content-Security-Policy": ("string", "Always `sandbox`."),
    "Cache-Control": ("string", "Always `no-store`: no cache keeps an answer of /v1."),
}


def _headers_of(*names: str, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """Response headers, inline: whether one is required depends on the response."""
    return {
        name: {
            "description": _HEADERS[name][1],
            "required": name in names,
            "schema": {"type": _HEADERS[name][0]},
        }
        for name in (*names, *optional)
    }


_RATE_LIMITED = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")


def _error(description: str, *headers: str, optional: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "description": description,
        "headers": _headers_of("X-Request-Id", *headers, optional=optional),
        "content": {"application/json": {"schema": _ref("schemas", "Error")}},
    }


def _challenged(answer: dict[str, Any], challenge: str) -> dict[str, Any]:
    """A 401 with the WWW-Authenticate it is sent with, word for word."""
    answer["headers"]["WWW-Authenticate"].update(
        description=f"Always `{challenge}`.", schema={"type": "string", "const": challenge}
    )
    return answer


def _responses() -> dict[str, Any]:
    return {
        "BadRequest": _error(
            "BAD_REQUEST: the body is not JSON, or not a JSON object.", *_RATE_LIMITED
        ),
        "Unauthenticated": _challenged(
            _error(
                "UNAUTHENTICATED: a missing, malformed, unknown, revoked or expired key; "
                "`reason` says which.",
                "WWW-Authenticate",
            ),
            KEY_CHALLENGE,
        ),
        "Forbidden": _error(
            "FORBIDDEN: the key lacks the scope; `required_scopes` names those that would do.",
            *_RATE_LIMITED,
        ),
        "NotFound": _error(
            "NOT_FOUND: no such issue in the key's workspace (another workspace's issue, "
            "and an id that is not an issue's, answer the same).",
            *_RATE_LIMITED,
        ),
        "PayloadTooLarge": _error(
            "PAYLOAD_TOO_LARGE: the body is over the limit (1 MiB by default).", *_RATE_LIMITED
        ),
        "UnsupportedMediaType": _error(
            "UNSUPPORTED_MEDIA_TYPE: send `application/json` (UTF-8).", *_RATE_LIMITED
        ),
        "ValidationFailed": _error(
            "VALIDATION_FAILED (`fields` names each refused input: REQUIRED, INVALID or "
            "TOO_LONG), or IDEMPOTENCY_KEY_MISMATCH (the key was used with another body; "
            "POST /v1/issues).",
            *_RATE_LIMITED,
        ),
        "RateLimited": _error(
            "RATE_LIMITED: the key's requests per minute are spent (the X-RateLimit headers "
            "come with it), or this address's failed authentications are (they do not).",
            "Retry-After",
            optional=_RATE_LIMITED,
        ),
        "MethodNotAllowed": _error(
            "METHOD_NOT_ALLOWED: another method than the path's; `Allow` names those it takes.",
            "Allow",
        ),
        "InternalError": _error(
            "INTERNAL_SERVER_ERROR: masked; `request_id` finds it in the server's log."
        ),
    }


def _create_issue() -> dict[str, Any]:
    issue = {"application/json": {"schema": _ref("schemas", "Issue")}}
    return {
        "operationId": "createIssue",
        "summary": "Open an issue",
        "description": "The same operation as GraphQL's `createIssue`: the body becomes the "
        "first message, the requester a contact, the ticket number the workspace's next. "
        f"Needs a legacy `svc_live_` key, or a `svc_mk_` key with {_scopes('REST.createIssue')}.",
        "parameters": [_ref("parameters", "IdempotencyKey")],
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": _ref("schemas", "CreateIssueRequest")}},
        },
        "responses": {
            "201": {
                "description": "Created (or, for a retry with the same Idempotency-Key and "
                "body, the issue the first request created).",
                "headers": _headers_of("X-Request-Id", "Location", *_RATE_LIMITED),
                "content": issue,
                "links": {
                    "GetIssue": {
                        "operationId": "getIssue",
                        "parameters": {"id": "$response.body#/id"},
                    }
                },
            },
            "400": _ref("responses", "BadRequest"),
            "401": _ref("responses", "Unauthenticated"),
            "403": _ref("responses", "Forbidden"),
            "405": _ref("responses", "MethodNotAllowed"),
            "413": _ref("responses", "PayloadTooLarge"),
            "415": _ref("responses", "UnsupportedMediaType"),
            "422": _ref("responses", "ValidationFailed"),
            "429": _ref("responses", "RateLimited"),
            "500": _ref("responses", "InternalError"),
        },
    }


def _get_issue() -> dict[str, Any]:
    return {
        "operationId": "getIssue",
        "summary": "Read an issue with its messages",
        "description": "The same read as GraphQL's `issue(id)`. Needs a `svc_mk_` key with "
        f"{_scopes('REST.getIssue')}; legacy keys are refused (403). The thread holds the "
        f"public messages only, unless `{INCLUDE_INTERNAL}=true` asks for the internal "
        "notes too: this interface predates notes, and its integrations may show the "
        "thread to the requester.",
        "parameters": [
            {
                "name": "id",
                "in": "path",
                "required": True,
                "schema": {"type": "string"},
                "description": "The issue's id, as POST /v1/issues answered it.",
            },
            {
                "name": INCLUDE_INTERNAL,
                "in": "query",
                "required": False,
                "schema": {"type": "boolean", "default": False},
                "description": "`true`: the thread with its internal notes (`visibility: "
                "internal`), which the requester must never see. `false` or none: public "
                "messages only. Any other value, or the parameter twice, answers 422 "
                f"VALIDATION_FAILED (`{INCLUDE_INTERNAL}`, INVALID).",
            },
        ],
        "responses": {
            "200": {
                "description": "The issue and its thread.",
                "headers": _headers_of("X-Request-Id", "Cache-Control", *_RATE_LIMITED),
                "content": {"application/json": {"schema": _ref("schemas", "IssueWithMessages")}},
            },
            "401": _ref("responses", "Unauthenticated"),
            "403": _ref("responses", "Forbidden"),
            "404": _ref("responses", "NotFound"),
            "405": _ref("responses", "MethodNotAllowed"),
            "422": _ref("responses", "ValidationFailed"),
            "429": _ref("responses", "RateLimited"),
            "500": _ref("responses", "InternalError"),
        },
    }


def _attachment_id() -> dict[str, Any]:
    return {
        "name": "id",
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
        "description": "The attachment's id, as createAttachmentUpload answered it.",
    }


def _upload_attachment() -> dict[str, Any]:
    return {
        "operationId": "uploadAttachment",
        "summary": "Send an attachment's bytes",
        "description": "The second step of an upload (docs/attachments.md): GraphQL's "
        "`createAttachmentUpload` answers this URL; PUT exactly its `sizeBytes` bytes here, "
        f"with a `svc_mk_` key with {_scopes('REST.uploadAttachment')}, before `expiresAt`. "
        "Another size answers 400 SIZE_MISMATCH and keeps nothing; an expired URL 410 "
        "UPLOAD_EXPIRED; bytes sent already 409 ALREADY_UPLOADED.",
        "parameters": [_attachment_id()],
        "requestBody": {
            "required": True,
            "content": {"application/octet-stream": {"schema": {}}},
        },
        "responses": {
            "201": {
                "description": "Kept; the type is the one the bytes show.",
                "headers": _headers_of("X-Request-Id", *_RATE_LIMITED),
                "content": {"application/json": {"schema": _ref("schemas", "Attachment")}},
            },
            "400": _error("SIZE_MISMATCH: not exactly `sizeBytes` bytes.", *_RATE_LIMITED),
            "401": _ref("responses", "Unauthenticated"),
            "403": _ref("responses", "Forbidden"),
            "404": _ref("responses", "NotFound"),
            "405": _ref("responses", "MethodNotAllowed"),
            "409": _error("ALREADY_UPLOADED: the bytes came already.", *_RATE_LIMITED),
            "410": _error("UPLOAD_EXPIRED: ask for a new upload.", *_RATE_LIMITED),
            "429": _ref("responses", "RateLimited"),
            "500": _ref("responses", "InternalError"),
        },
    }


def _download_attachment() -> dict[str, Any]:
    safe = ("Content-Disposition", "X-Content-Type-Options", "Content-Security-Policy")
    return {
        "operationId": "downloadAttachment",
        "summary": "Fetch an attachment's bytes",
        "description": f"Needs a `svc_mk_` key with {_scopes('REST.downloadAttachment')}. "
        "The bytes, with the sniffed type, always as a download (never shown inline, "
        "HTML and SVG included).",
        "parameters": [_attachment_id()],
        "responses": {
            "200": {
                "description": "The bytes.",
                "headers": _headers_of("X-Request-Id", "Cache-Control", *safe, *_RATE_LIMITED),
                "content": {"*/*": {"schema": {}}},
            },
            "401": _ref("responses", "Unauthenticated"),
            "403": _ref("responses", "Forbidden"),
            "404": _ref("responses", "NotFound"),
            "429": _ref("responses", "RateLimited"),
            "500": _ref("responses", "InternalError"),
        },
    }


def _stream_events() -> dict[str, Any]:
    sequence = {"type": "integer", "minimum": 0}
    return {
        "operationId": "streamEvents",
        "summary": "Follow the event log live (server-sent events)",
        "description": "The events GraphQL's `events` shows this key, pushed as they are "
        "committed: each one SSE message with `id` its sequence, `event` its type and "
        "`data` the event's JSON on one line, the same JSON as `events` and webhook bodies. "
        "`Last-Event-ID` (or `after`) resumes after that sequence with no gap and no "
        "duplicate; one older than retention first sends `event: reset` with "
        '`data: {"oldestSequence": N}`. A `: keep-alive` comment comes every 15 s. '
        "The stream ends when the key is revoked or expires, and when the client reads "
        "too slowly (it resumes with Last-Event-ID). At most 10 open streams per key. "
        f"Needs a `svc_mk_` key with {_scopes('REST.streamEvents')}; each event is shown "
        "only to keys that may read its object. See docs/events-stream.md.",
        "parameters": [
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "schema": sequence,
                "description": "The last sequence the client saw; wins over `after`.",
            },
            {
                "name": "after",
                "in": "query",
                "required": False,
                "schema": sequence,
                "description": "Send the events after this sequence first. Neither this "
                "nor Last-Event-ID: only events committed from now on. Past the last "
                "event: 400 BAD_USER_INPUT with `last_sequence`.",
            },
            {
                "name": "types",
                "in": "query",
                "required": False,
                "style": "form",
                "explode": False,
                "schema": {
                    "type": "array",
                    "minItems": 1,
                    "items": {"type": "string", "enum": list(EVENT_TYPES)},
                },
                "description": "Only these types, comma-separated, e.g. "
                "`issue.created,message.created`; an unknown type, or none between two "
                "commas, answers 400 VALIDATION_FAILED (`types`, INVALID).",
            },
        ],
        "responses": {
            "200": {
                "description": "The stream, until the client closes it.",
                "headers": _headers_of("X-Request-Id", *_RATE_LIMITED),
                "content": {"text/event-stream": {"schema": {"type": "string"}}},
            },
            "400": _error(
                "VALIDATION_FAILED: `after`, `Last-Event-ID` or `types` is not what it should "
                "be (`fields` names it); BAD_USER_INPUT: `after` is past the last event.",
                *_RATE_LIMITED,
            ),
            "401": _ref("responses", "Unauthenticated"),
            "403": _ref("responses", "Forbidden"),
            "405": _ref("responses", "MethodNotAllowed"),
            "429": _error(
                "RATE_LIMITED, as for any request (with Retry-After); or LIMIT_REACHED: the "
                "key has `limit` event streams open already (10), and only closing one "
                "makes room, so no Retry-After comes with it.",
                optional=("Retry-After", *_RATE_LIMITED),
            ),
            "500": _ref("responses", "InternalError"),
        },
    }


_MAX_MAIL = Settings.model_fields["email_max_bytes"].default


def _receive_inbound_email() -> dict[str, Any]:
    result = {"application/json": {"schema": _ref("schemas", "InboundEmailResult")}}
    return {
        "operationId": "receiveInboundEmail",
        "summary": "Deliver a raw e-mail to a mailbox",
        "description": "The HTTP door of the e-mail channel (docs/email.md), for providers "
        "that forward raw mail to a URL: the body is the message exactly as received (RFC "
        "5322), and the Bearer is the mailbox's inbound token (`mbt_…`, shown once when the "
        "mailbox is made or its token rotated; Settings → Email or GraphQL's "
        "`createMailbox`), not an API key. The message goes through the same pipeline as "
        "the SMTP listener's and IMAP's: it opens an issue or joins the one it answers. "
        "Every message is kept raw, and one Message-ID is processed once per mailbox, so a "
        "provider's retry is harmless. A refused token counts against the client's address "
        "as a refused key does (429 past the limit). No rate limit per token.",
        "security": [{"mailboxToken": []}],
        "requestBody": {
            "required": True,
            "description": "The raw message, headers and body, as bytes. Not blank (only white "
            "space answers 400); at most "
            f"SUPPORTDESK_EMAIL_MAX_BYTES ({_MAX_MAIL:,} bytes by default).",
            "content": {
                MAIL_MEDIA_TYPE: {"schema": {"type": "string", "contentMediaType": MAIL_MEDIA_TYPE}}
            },
        },
        "responses": {
            "202": {
                "description": "Taken: what became of it. A message that could not be read "
                f"is `{PARKED}` and still answered 202 (it is for a person, not a retry).",
                "headers": _headers_of("X-Request-Id"),
                "content": result,
            },
            "200": {
                "description": "The mailbox had this Message-ID already: the first answer's "
                "fields, with `duplicate: true`.",
                "headers": _headers_of("X-Request-Id"),
                "content": result,
            },
            "400": _error("BAD_REQUEST: the body is empty."),
            "401": _challenged(
                _error(
                    "UNAUTHENTICATED: no token (`reason: missing`), or one that is no "
                    "mailbox's inbound token now (`reason: invalid`: unknown, rotated, or the "
                    "mailbox deleted). An API key is no inbound token.",
                    "WWW-Authenticate",
                ),
                TOKEN_CHALLENGE,
            ),
            "405": _ref("responses", "MethodNotAllowed"),
            "413": _error(
                "PAYLOAD_TOO_LARGE: the message is over SUPPORTDESK_EMAIL_MAX_BYTES; nothing "
                "of it is kept."
            ),
            "415": _error(f"UNSUPPORTED_MEDIA_TYPE: send the raw mail as `{MAIL_MEDIA_TYPE}`."),
            "429": _error(
                "RATE_LIMITED: this address's failed authentications are spent.", "Retry-After"
            ),
            "500": _ref("responses", "InternalError"),
        },
    }


def openapi_document() -> dict[str, Any]:
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "supportdesk REST API",
            "version": __version__,
            "description": "The older REST interface, kept so that its integrations keep "
            "working; everything else is in the GraphQL API at /graphql. Each key has the "
            "same rate limit over both (600 requests a minute by default). Another method "
            "than a path's answers 405 with `Allow`, and every answer carries "
            "`Cache-Control: no-store`.",
        },
        "paths": {
            "/v1/issues": {"post": _create_issue()},
            "/v1/issues/{id}": {"get": _get_issue()},
            "/v1/attachments/{id}/content": {
                "put": _upload_attachment(),
                "get": _download_attachment(),
            },
            "/v1/events/stream": {"get": _stream_events()},
            "/v1/inbound-email": {"post": _receive_inbound_email()},
        },
        "security": [{"bearer": []}],
        "components": {
            "securitySchemes": {
                "bearer": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "An API key: `svc_mk_…` (settings page or createApiKey) "
                    "or a legacy `svc_live_…`.",
                },
                "mailboxToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A mailbox's inbound token, `mbt_…` (its first "
                    f"{TOKEN_PREFIX_LENGTH} characters are the mailbox's `tokenPrefix`): "
                    "for POST /v1/inbound-email only.",
                },
            },
            "schemas": _schemas(),
            "parameters": {
                "IdempotencyKey": {
                    "name": IDEMPOTENCY_HEADER,
                    "in": "header",
                    "required": False,
                    "schema": {"type": "string", "maxLength": MAX_KEY_LENGTH},
                    "description": "A retry with the same key and body within "
                    f"{RETENTION.total_seconds() / 3600:g} hours answers the issue the first "
                    "request created; the same key with another body answers 422 "
                    "IDEMPOTENCY_KEY_MISMATCH. Keys are shared with GraphQL's "
                    "`createIssue(input: {idempotencyKey})`.",
                },
            },
            "responses": _responses(),
        },
    }

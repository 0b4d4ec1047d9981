"""An attachment's bytes (docs/attachments.md): `PUT /v1/attachments/{id}/content` streams
them in, `GET` streams them out, always as a download that no browser runs or renders in
our origin: `Content-Disposition: attachment`, `X-Content-Type-Options: nosniff`,
`Content-Security-Policy: sandbox`."""

from __future__ import annotations

import unicodedata
from collections.abc import Awaitable, Callable
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from supportdesk.auth.principal import Principal
from supportdesk.domain import attachments
from supportdesk.domain.clock import now
from supportdesk.http.admission import Admission
from supportdesk.rest.errors import json_response
from supportdesk.rest.schemas import attachment_json

# What every download carries, whatever the file holds.
SAFE_DOWNLOAD_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "sandbox",
    "Cross-Origin-Resource-Policy": "same-origin",
}


def base_url_of(request: Request) -> str:
    return str(request.base_url).rstrip("/")


async def upload(request: Request, principal: Principal) -> Response:
    """The bytes of an upload, streamed to the store; 201 with the attachment."""
    state = request.app.state
    received = await attachments.receive_upload(
        state.db,
        state.storage,
        principal.workspace_id,
        principal.key_id,
        request.path_params["id"],
        request.stream(),
        now(),
    )
    return json_response(attachment_json(received, base_url_of(request)), 201)


Admit = Callable[[Request], Awaitable[tuple[Principal, dict[str, str]]]]


def readers(admission: Admission) -> Admit:
    """Who may ask for an attachment's bytes, the one place that says so: a key, whose
    scopes the permission table then checks (`REST.downloadAttachment`). The agent inbox's
    browser session is to be let in here, beside the key (a link in a page carries no
    Authorization header)."""
    return admission.admit


async def download(request: Request, principal: Principal) -> Response:
    """The bytes, streamed from the store, as an attachment."""
    state = request.app.state
    found, chunks = await attachments.open_attachment(
        state.db, state.storage, principal.workspace_id, request.path_params["id"]
    )
    headers = {
        **SAFE_DOWNLOAD_HEADERS,
        "Content-Disposition": content_disposition(found.file_name),
        "Content-Length": str(found.size_bytes),
    }
    return StreamingResponse(chunks, headers=headers, media_type=found.content_type)


def content_disposition(file_name: str) -> str:
    """`attachment`, the name as RFC 6266 and 5987 write it (UTF-8, percent-encoded), and
    an ASCII stand-in for clients that read only `filename`."""
    encoded = quote(file_name, safe="")
    return f"attachment; filename=\"{_ascii_name(file_name)}\"; filename*=UTF-8''{encoded}"


def _ascii_name(file_name: str) -> str:
    """Accents dropped, any other character outside printable ASCII (and `"` and `\\`,
    which a quoted string would have to escape, and `/`, which a compatibility form such as
    `℀` decomposes into) an underscore."""
    kept = "".join(_ascii_of(c) for c in file_name).strip()
    return kept or "download"


def _ascii_of(character: str) -> str:
    plain = unicodedata.normalize("NFKD", character).encode("ascii", "ignore").decode()
    return plain if plain and all(" " <= c <= "~" and c not in '"\\/' for c in plain) else "_"

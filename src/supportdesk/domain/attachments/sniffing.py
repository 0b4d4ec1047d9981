"""The type of a file, from its first bytes (puremagic), never from what the client says."""

from __future__ import annotations

import puremagic

from supportdesk.domain.attachments.models import UNKNOWN_TYPE

# What the sniffer reads: the signatures it knows sit in the first few kilobytes.
HEAD_BYTES = 64 * 1024


def sniffed_type(head: bytes) -> str:
    """The MIME type the bytes show, or application/octet-stream."""
    if not head:
        return UNKNOWN_TYPE
    try:
        matches = puremagic.magic_string(head)
    except puremagic.PureError:
        return UNKNOWN_TYPE
    for match in matches:
        if match.mime_type:
            return str(match.mime_type)
    return UNKNOWN_TYPE

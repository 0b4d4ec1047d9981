"""Plain sockets, for what an HTTP client library will not do: send headers that promise a
body that never comes, or stop a chunked body half-way, then read the answer."""

from __future__ import annotations

import socket


def exchange(port: int, head: str, body_parts: list[bytes], timeout: float = 10) -> tuple[int, str]:
    """Send `head` (request line and headers) and the parts, then read the answer's status
    and raw text while the connection stays open."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        for part in body_parts:
            connection.sendall(part)
        received = b""
        while b"\r\n\r\n" not in received or not _complete(received):
            chunk = connection.recv(65536)
            if not chunk:
                break
            received += chunk
    text = received.decode("latin-1")
    return int(text.split(" ", 2)[1]), text


def _complete(received: bytes) -> bool:
    head, _, body = received.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return len(body) >= int(value.strip())
    return True


def chunk(data: bytes) -> bytes:
    return f"{len(data):x}\r\n".encode() + data + b"\r\n"

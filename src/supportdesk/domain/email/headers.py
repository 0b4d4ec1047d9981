"""The e-mail policy of mail read and written: the standard library's `policy.default`, whose
headers are parsed once. `policy.default` parses a header anew at every read and every set:
a part's Content-Type a dozen times or more while a message is parsed and walked (a third of
reading one), and the same Content-Type, MIME-Version and transfer encoding once per mail
built. The registry's own classes parse; a parsed header is an immutable string, so one parse
serves every use of the same name and text."""

from __future__ import annotations

from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from typing import Any

# How many parsed headers are kept (then all are dropped at once), and the longest kept.
REMEMBERED = 1024
REMEMBERED_LENGTH = 2000


class ParsedOnce(HeaderRegistry):
    """The standard header registry, remembering what it parsed lately from text."""

    def __init__(self) -> None:
        super().__init__()
        self._parsed: dict[tuple[str, str], BaseHeader] = {}
        self._classes: dict[type, type[BaseHeader]] = {}

    def __getitem__(self, name: str) -> type[BaseHeader]:
        # The standard registry makes a new class at every call: a fifth of building a
        # mail's content, where every header set asks for its name's class twice. Kept by
        # the registry's own class, so any header name a sender invents shares one.
        kind = self.registry.get(name.lower(), self.default_class)
        found = self._classes.get(kind)
        if found is None:
            found = self._classes[kind] = super().__getitem__(name)
        return found

    def __call__(self, name: str, value: Any) -> BaseHeader:
        # Text only: an Address or a Group set by our own code is parsed as it comes.
        if type(value) is not str or len(value) > REMEMBERED_LENGTH:
            return super().__call__(name, value)
        key = (name, value)
        found = self._parsed.get(key)
        if found is None:
            found = super().__call__(name, value)
            if len(self._parsed) >= REMEMBERED:
                self._parsed.clear()
            self._parsed[key] = found
        return found


class FoldedSimply(policy.EmailPolicy):
    """`policy.default`, writing a header that fits on its line as it reads. The standard
    fold rebuilds every header from its parse tree (a third of composing a mail); for a
    header of plain ASCII that needs no folding that gives back its text as it is, so the
    text is written directly. Anything else (a long References, non-ASCII to encode, what
    may look like an encoded word) is folded as the standard library does."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        limit = self.max_line_length
        if isinstance(value, BaseHeader) and limit and not self.utf8:
            text = str(value)
            header = value.name
            if (
                text
                and len(header) + len(text) + 2 <= limit
                and text.isascii()
                and text.isprintable()
                and "=?" not in text
                and text == text.strip()
                and "  " not in text
            ):
                return f"{header}: {text}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


POLICY = FoldedSimply(header_factory=ParsedOnce())

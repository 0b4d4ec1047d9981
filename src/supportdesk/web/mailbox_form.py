"""The mailbox form (create and edit): what the person chose, read and checked before the
domain acts, and the domain's refusals put next to the field they concern.

The IMAP URL is asked for in two fields: the URL without its password, which the page
shows again, and the password, which it never shows (not even after a mistake). Left
empty when editing, the password field keeps the one the mailbox has."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit, urlunsplit

from starlette.datastructures import FormData

from supportdesk.domain.changes import KEEP, Keep
from supportdesk.domain.errors import DomainError, ErrorCode, FieldCode
from supportdesk.domain.mailboxes import Mailbox
from supportdesk.domain.mailboxes.imap_url import MASK, MAX_URL, parsed_imap_url

MAX_NAME = 200
_FIELD_NAMES = {"imapUrl": "imap_url"}
_FIELD_MESSAGES: dict[tuple[str, str], str] = {
    ("address", FieldCode.REQUIRED): "Enter the address customers write to.",
    ("address", FieldCode.INVALID): "Enter an e-mail address, e.g. support@example.com.",
    ("address", FieldCode.TOO_LONG): "Keep the address to 254 characters or fewer.",
    ("name", FieldCode.TOO_LONG): "Keep the name to 200 characters or fewer.",
    ("name", FieldCode.INVALID): "The name contains a character it cannot hold.",
    ("imap_url", FieldCode.INVALID): "An IMAP URL reads imaps://user@host/INBOX.",
    ("imap_url", FieldCode.TOO_LONG): "Keep the IMAP URL to 2,048 characters or fewer.",
}
_RETYPE = "Type the password again: a changed IMAP URL does not keep the previous one."


def without_password(url: str) -> str:
    """The URL as the form shows it: user, host and folder, never a password."""
    parts = urlsplit(url)
    userinfo, at, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}{at}{host}"))


def _password_of(url: str) -> str | None:
    """A password typed into the URL itself (`***`, copied from the page, is none)."""
    try:
        password = urlsplit(url).password
    except ValueError:
        return None
    return password if password and password != MASK else None


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    userinfo, _, host = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    netloc = f"{user}:{quote(password, safe='')}@{host}"
    return urlunsplit(parts._replace(netloc=netloc))


@dataclass
class MailboxForm:
    """The form's values, as shown again when something needs fixing (no password)."""

    address: str = ""
    name: str = ""
    acknowledge: bool = False
    imap_url: str = ""
    errors: dict[str, str] = field(default_factory=dict)
    # The password typed (in its own field or in the URL); never rendered.
    _password: str = field(default="", repr=False)

    @classmethod
    def read(cls, form: FormData) -> MailboxForm:
        def text(name: str) -> str:
            value = form.get(name)
            return value if isinstance(value, str) else ""

        url = text("imap_url").strip()
        password = text("imap_password") or _password_of(url) or ""
        return cls(
            address=text("address"),
            name=text("name"),
            acknowledge=text("acknowledge") == "true",
            imap_url=without_password(url) if url else "",
            _password=password,
        )

    @classmethod
    def of(cls, mailbox: Mailbox) -> MailboxForm:
        shown = without_password(mailbox.imap_url) if mailbox.imap_url else ""
        return cls(mailbox.address, mailbox.name, mailbox.acknowledge, shown)

    @property
    def password_typed(self) -> bool:
        """Whether a password came with the form (the page asks for it again after an
        error, since it never sends one back)."""
        return bool(self._password)

    def check(self, mailbox: Mailbox | None = None) -> None:
        """Record what the page itself can tell is wrong; the domain checks again."""
        address = self.address.strip()
        if not address:
            self.errors["address"] = _FIELD_MESSAGES["address", FieldCode.REQUIRED]
        elif "+" in address.partition("@")[0]:
            self.errors["address"] = (
                "A mailbox's address has no + part: mail to its plus forms"
                " (support+billing@…) reaches the mailbox anyway."
            )
        if len(self.name.strip()) > MAX_NAME:
            self.errors["name"] = _FIELD_MESSAGES["name", FieldCode.TOO_LONG]
        if not self.imap_url:
            return
        if len(self.imap_url) > MAX_URL or parsed_imap_url(self.imap_url) is None:
            self.errors["imap_url"] = _FIELD_MESSAGES["imap_url", FieldCode.INVALID]
        elif not self._password and self.imap_change(mailbox) is not KEEP:
            self.errors["imap_password"] = (
                _RETYPE
                if mailbox is not None and mailbox.imap_url
                else "Enter the password (or app password) of the IMAP account."
            )

    def imap_change(self, mailbox: Mailbox | None = None) -> str | Keep:
        """What the domain takes: the whole URL, "" to remove it, or KEEP when the URL is
        the mailbox's and no new password was typed."""
        if not self.imap_url:
            return ""
        current = mailbox.imap_url if mailbox is not None else None
        if current and not self._password and self.imap_url == without_password(current):
            return KEEP
        if not self._password:
            return self.imap_url
        return _with_password(self.imap_url, self._password)

    def explain(self, error: DomainError) -> None:
        """Put a domain error next to the field it concerns."""
        if error.code == ErrorCode.ALREADY_EXISTS:
            # The address is another mailbox's, or its domain another workspace's.
            self.errors["address"] = error.message
            return
        for problem in error.fields:
            name = _FIELD_NAMES.get(problem.field, problem.field)
            self.errors[name] = _FIELD_MESSAGES.get((name, problem.code), "Check this field.")
        if not self.errors:
            self.errors["form"] = error.message

"""Mailboxes: a workspace's e-mail addresses, each with an inbound token (docs/email.md)."""

from supportdesk.domain.mailboxes.actions import (
    MailboxWithToken,
    create_mailbox,
    delete_mailbox,
    rotate_mailbox_token,
    update_mailbox,
)
from supportdesk.domain.mailboxes.grants import (
    grant_mail_domain,
    list_mail_domains,
    share_mail_domain,
)
from supportdesk.domain.mailboxes.models import Mailbox
from supportdesk.domain.mailboxes.queries import (
    count_mailboxes,
    get_mailboxes,
    list_mailboxes,
    mailbox_for_recipient,
    mailbox_for_token,
)

__all__ = [
    "Mailbox",
    "MailboxWithToken",
    "count_mailboxes",
    "create_mailbox",
    "delete_mailbox",
    "get_mailboxes",
    "grant_mail_domain",
    "list_mail_domains",
    "list_mailboxes",
    "mailbox_for_recipient",
    "mailbox_for_token",
    "rotate_mailbox_token",
    "share_mail_domain",
    "update_mailbox",
]

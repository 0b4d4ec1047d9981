"""The IMAP door (docs/email.md): the dispatcher role polls each mailbox's IMAP folder."""

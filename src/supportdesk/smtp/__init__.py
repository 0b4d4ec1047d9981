"""The SMTP door of the e-mail channel (docs/email.md)."""

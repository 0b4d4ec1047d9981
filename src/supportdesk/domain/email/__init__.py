"""The e-mail channel (docs/email.md): raw RFC 5322 messages from every door go through
one pipeline that reads them, keeps them, threads them and writes their messages."""

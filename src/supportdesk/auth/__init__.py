"""Who is calling and what they may do: scopes, key format, authentication, permissions."""

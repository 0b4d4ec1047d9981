"""Webhooks: endpoints that receive the workspace's events, signed, retried, never aimed inside."""

"""The settings pages, one module per area."""

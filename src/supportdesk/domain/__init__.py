"""The product's rules, one package per area. No HTTP, no GraphQL: every entry point
(the API, the settings page, the command line) calls these services."""

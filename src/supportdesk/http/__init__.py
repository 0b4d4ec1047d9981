"""HTTP: the GraphQL endpoint, health checks, request ids."""

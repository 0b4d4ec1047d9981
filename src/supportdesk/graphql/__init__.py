"""The GraphQL adapter: a thin layer over the domain, mirroring its areas."""

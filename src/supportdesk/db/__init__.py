"""Storage: the engine, transactions and the table definitions. The only place that commits."""

from supportdesk.db.database import Database

__all__ = ["Database"]

"""Storage: the engine, transactions, compiled reads and the table definitions. The only
place that commits."""

from supportdesk.db.connection import Connection, DatabaseUnavailable
from supportdesk.db.database import Database
from supportdesk.db.reads import Read, in_ids, positional

__all__ = ["Connection", "Database", "DatabaseUnavailable", "Read", "in_ids", "positional"]

"""Storage: the engine, transactions, compiled reads and the table definitions. The only
place that commits."""

from supportdesk.db.database import Database
from supportdesk.db.reads import Read, fetch_in, in_ids, positional

__all__ = ["Database", "Read", "fetch_in", "in_ids", "positional"]

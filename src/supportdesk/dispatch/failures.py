"""How a polling loop of the dispatcher says it failed: a database out of reach once when
the outage starts and once when it ends, not a traceback at every poll; anything else in
full each time."""

from __future__ import annotations

import logging

from supportdesk.db import DatabaseUnavailable


class LoopFailures:
    def __init__(self, logger: logging.Logger, doing: str) -> None:
        self._logger = logger
        self._doing = doing  # "Taking webhook deliveries"
        self._unreachable = False

    def failed(self, error: Exception) -> None:
        if not isinstance(error, DatabaseUnavailable):
            self._logger.error("%s failed; trying again shortly.", self._doing, exc_info=error)
        elif not self._unreachable:
            self._unreachable = True
            self._logger.warning(
                "%s: the database is out of reach (%s); trying again.", self._doing, error
            )

    def succeeded(self) -> None:
        if self._unreachable:
            self._unreachable = False
            self._logger.warning("%s: the database answers again.", self._doing)

"""A dispatcher's attempts by endpoint and workspace: what runs, what waits, what more it
may take.

An attempt runs only while its endpoint has fewer than PER_ENDPOINT running, its workspace
fewer than PER_WORKSPACE, and the dispatcher fewer than CONCURRENCY in all: one
workspace's slow or dead receivers hold a bounded share of the slots, never all of them.

Deliveries taken from the queue wait in their endpoint's line until they may run, so that
an endpoint that answers at once is sent to back to back, without a trip to the database
between attempts. A waiting delivery holds no slot. How many an endpoint may hold (running
and waiting) is its PER_ENDPOINT, or AHEAD times that once its last attempt had an answer
within FAST_SECONDS; a workspace holds at most AHEAD x PER_WORKSPACE, the dispatcher at
most AHEAD x CONCURRENCY. With the default lease (60 s) and time-out (10 s), even a
line of an endpoint that has stopped answering runs within its lease (AHEAD - 1 rounds of
time-outs); one that would not is given back to the queue (`startable`).
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from supportdesk.dispatch.queue import Candidate, Due

CONCURRENCY = 256
PER_WORKSPACE = 32
PER_ENDPOINT = 8
AHEAD = 4
FAST_SECONDS = 1.0
FAST_KEPT = 4096


@dataclass
class _Line:
    """One endpoint's deliveries: how many run, and those waiting with their start-by."""

    workspace_id: str
    running: int = 0
    waiting: deque[tuple[Due, float]] = field(default_factory=deque)

    @property
    def held(self) -> int:
        return self.running + len(self.waiting)


class Shares:
    def __init__(
        self,
        concurrency: int = CONCURRENCY,
        per_workspace: int = PER_WORKSPACE,
        per_endpoint: int = PER_ENDPOINT,
    ) -> None:
        self.concurrency = concurrency
        self.per_workspace = per_workspace
        self.per_endpoint = per_endpoint
        self.running = 0
        self.waiting = 0
        self._lines: dict[str, _Line] = {}  # by endpoint, while it holds deliveries
        self._workspace_running: Counter[str] = Counter()
        self._workspace_held: Counter[str] = Counter()
        self._fast: set[str] = set()  # endpoints whose last attempt was answered quickly

    def room(self) -> int:
        """How many more deliveries may be taken now."""
        return max(0, self.concurrency * AHEAD - self.running - self.waiting)

    def deepest(self) -> int:
        return self.per_endpoint * AHEAD

    def full_endpoints(self) -> list[str]:
        return [key for key, line in self._lines.items() if line.held >= self._depth(key)]

    def full_workspaces(self) -> list[str]:
        most = self.per_workspace * AHEAD
        return [key for key, held in self._workspace_held.items() if held >= most]

    def pick(self, candidates: Sequence[Candidate]) -> list[Candidate]:
        """Those of `candidates` (in order) that fit the room of their endpoint, their
        workspace and the dispatcher."""
        picked: list[Candidate] = []
        endpoints: Counter[str] = Counter()
        workspaces: Counter[str] = Counter()
        room, most = self.room(), self.per_workspace * AHEAD
        for one in candidates:
            if len(picked) >= room:
                break
            line = self._lines.get(one.endpoint_id)
            held = (line.held if line else 0) + endpoints[one.endpoint_id]
            in_workspace = self._workspace_held[one.workspace_id] + workspaces[one.workspace_id]
            if held < self._depth(one.endpoint_id) and in_workspace < most:
                picked.append(one)
                endpoints[one.endpoint_id] += 1
                workspaces[one.workspace_id] += 1
        return picked

    def add(self, due: Due, start_by: float) -> None:
        """A delivery taken from the queue waits in its endpoint's line; it must start by
        `start_by` (time.monotonic())."""
        line = self._lines.get(due.endpoint_id)
        if line is None:
            line = self._lines[due.endpoint_id] = _Line(due.workspace_id)
        line.waiting.append((due, start_by))
        self.waiting += 1
        self._workspace_held[due.workspace_id] += 1

    def startable(self, moment: float) -> tuple[list[Due], list[Due]]:
        """The waiting deliveries that may run now (counted as running from here), and
        those that waited past their start-by (no longer held: for the queue again)."""
        started: list[Due] = []
        late: list[Due] = []
        for key, line in list(self._lines.items()):
            while line.waiting and self._may_run(line):
                due, start_by = line.waiting.popleft()
                self.waiting -= 1
                if start_by <= moment:
                    late.append(due)
                    self._let_go(key, line)
                    continue
                line.running += 1
                self.running += 1
                self._workspace_running[line.workspace_id] += 1
                started.append(due)
        return started, late

    def finished(self, due: Due) -> bool:
        """An attempt ended; True when its endpoint, its workspace or the dispatcher was
        full, so that the queue may hold more for the room it leaves."""
        line = self._lines[due.endpoint_id]
        was_full = (
            line.held >= self._depth(due.endpoint_id)
            or self._workspace_held[line.workspace_id] >= self.per_workspace * AHEAD
            or self.running >= self.concurrency
        )
        line.running -= 1
        self.running -= 1
        self._workspace_running[line.workspace_id] -= 1
        if not self._workspace_running[line.workspace_id]:
            del self._workspace_running[line.workspace_id]
        self._let_go(due.endpoint_id, line)
        return was_full

    def drop_waiting(self, endpoint_id: str | None = None) -> list[Due]:
        """The deliveries waiting in one endpoint's line (or in every line), no longer held."""
        dropped: list[Due] = []
        for key in [endpoint_id] if endpoint_id is not None else list(self._lines):
            line = self._lines.get(key)
            while line is not None and line.waiting:
                dropped.append(line.waiting.popleft()[0])
                self.waiting -= 1
                self._let_go(key, line)
        return dropped

    def answered(self, endpoint_id: str, quickly: bool) -> None:
        """How the endpoint's last attempt went: an answer within FAST_SECONDS lets its
        line hold more."""
        if not quickly:
            self._fast.discard(endpoint_id)
            return
        if len(self._fast) >= FAST_KEPT:
            self._fast.clear()
        self._fast.add(endpoint_id)

    def _depth(self, endpoint_id: str) -> int:
        return self.per_endpoint * (AHEAD if endpoint_id in self._fast else 1)

    def _may_run(self, line: _Line) -> bool:
        return (
            self.running < self.concurrency
            and line.running < self.per_endpoint
            and self._workspace_running[line.workspace_id] < self.per_workspace
        )

    def _let_go(self, key: str, line: _Line) -> None:
        """One delivery of the line is no longer held (run, dropped or late)."""
        self._workspace_held[line.workspace_id] -= 1
        if not self._workspace_held[line.workspace_id]:
            del self._workspace_held[line.workspace_id]
        if not line.held:
            del self._lines[key]

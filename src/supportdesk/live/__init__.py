"""Live events (docs/events-stream.md): the event log pushed to open streams as it grows,
read once per process by a tailer and fanned out to each stream's bounded buffer."""

from supportdesk.live import shutdown, sse
from supportdesk.live.feed import Feed, Reader, Reset, visible_types
from supportdesk.live.hub import LiveEvents
from supportdesk.live.key_watch import ActiveWatch
from supportdesk.live.slots import Lease
from supportdesk.live.subscription import FeedOverflow
from supportdesk.live.watch import StreamEnded, watched

__all__ = [
    "ActiveWatch",
    "Feed",
    "FeedOverflow",
    "Lease",
    "LiveEvents",
    "Reader",
    "Reset",
    "StreamEnded",
    "shutdown",
    "sse",
    "visible_types",
    "watched",
]

"""The log line's timestamp: what datetime's ISO form to the millisecond gives, cheaper."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import orjson
from hypothesis import given
from hypothesis import strategies as st

from supportdesk.logs import JsonFormatter

# From 1970 to 2100, and the instants just around a millisecond, where rounding decides.
INSTANTS = st.one_of(
    st.floats(min_value=0, max_value=4_102_444_800, allow_nan=False),
    st.builds(
        lambda second, millis, nudge: second + millis / 1000 + nudge,
        st.integers(0, 4_102_444_800),
        st.integers(0, 999),
        st.sampled_from([0.0, 4.995e-4, 5e-7, -4e-7, 9.999996e-4, -5e-7]),
    ),
)


def _line_at(formatter: JsonFormatter, created: float) -> dict[str, object]:
    record = logging.LogRecord("supportdesk.access", logging.INFO, "", 0, "request", (), None)
    record.created = created
    line: dict[str, object] = orjson.loads(formatter.format(record))
    return line


@given(st.lists(INSTANTS, min_size=1, max_size=20))
def test_the_time_is_datetimes_iso_form_to_the_millisecond(instants: list[float]) -> None:
    formatter = JsonFormatter()  # one formatter for many records, as in a worker
    for created in instants:
        expected = datetime.fromtimestamp(created, UTC).isoformat(timespec="milliseconds")
        assert _line_at(formatter, created)["time"] == expected

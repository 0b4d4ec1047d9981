"""Reading a Prometheus scrape in tests, and waiting until one shows what is expected (a
worker counts a request just after its answer has gone)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx
from prometheus_client.parser import text_string_to_metric_families

T = TypeVar("T")


@dataclass
class Scrape:
    text: str

    def samples(self, name: str) -> list[tuple[dict[str, str], float]]:
        """Every sample called `name` (e.g. `…_total`, `…_count`), with its labels."""
        return [
            (sample.labels, sample.value)
            for family in text_string_to_metric_families(self.text)
            for sample in family.samples
            if sample.name == name
        ]

    def total(self, name: str, **labels: str) -> float:
        """The sum of the samples called `name` that carry all of `labels`."""
        return sum(
            value
            for found, value in self.samples(name)
            if all(found.get(k) == v for k, v in labels.items())
        )


def scrape(url: str) -> Scrape:
    response = httpx.get(url, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return Scrape(response.text)


def wait_for(get: Callable[[], T], condition: Callable[[T], bool], timeout: float = 15) -> T:
    """`get()` until its value meets `condition`; the last value once `timeout` has run."""
    deadline = time.monotonic() + timeout
    while True:
        value = get()
        if condition(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)

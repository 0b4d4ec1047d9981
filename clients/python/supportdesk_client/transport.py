"""Sending one GraphQL request, retried by the RetryPolicy; the generated clients' base
classes (codegen/base_clients/) stand on these."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx

from .requests import is_repeatable
from .retries import RetryPolicy

ACCEPT = "application/graphql-response+json, application/json;q=0.9"


class SyncTransport:
    def __init__(self, url: str, http_client: httpx.Client, retry: RetryPolicy) -> None:
        self.url = url
        self.http_client = http_client
        self.retry = retry

    def send(self, request: dict[str, Any], **kwargs: Any) -> httpx.Response:
        repeatable = is_repeatable(request)
        attempt = 0
        while True:
            response = self.http_client.post(self.url, json=request, **kwargs)
            delay = self.retry.delay(response, attempt, repeatable=repeatable)
            if delay is None:
                return response
            response.close()
            time.sleep(delay)
            attempt += 1


class AsyncTransport:
    def __init__(self, url: str, http_client: httpx.AsyncClient, retry: RetryPolicy) -> None:
        self.url = url
        self.http_client = http_client
        self.retry = retry

    async def send(self, request: dict[str, Any], **kwargs: Any) -> httpx.Response:
        repeatable = is_repeatable(request)
        attempt = 0
        while True:
            response = await self.http_client.post(self.url, json=request, **kwargs)
            delay = self.retry.delay(response, attempt, repeatable=repeatable)
            if delay is None:
                return response
            await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

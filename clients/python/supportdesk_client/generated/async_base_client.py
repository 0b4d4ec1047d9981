"""The base class of the generated asynchronous client; ariadne-codegen copies this file
from clients/python/codegen/base_clients/ into the generated package. The work is done
by the hand-written supportdesk_client modules."""

from typing import Any

import httpx

from supportdesk_client.answers import read_data
from supportdesk_client.requests import graphql_request
from supportdesk_client.transport import AsyncTransport

from .sync_base_client import json_variables


class AsyncBaseClient(AsyncTransport):
    async def execute(
        self,
        query: str,
        operation_name: str | None = None,
        variables: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        request = graphql_request(query, operation_name, json_variables(variables or {}))
        return await self.send(request, **kwargs)

    def get_data(self, response: httpx.Response) -> dict[str, Any]:
        return read_data(response)

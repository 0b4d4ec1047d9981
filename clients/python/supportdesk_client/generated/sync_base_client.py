"""The base class of the generated synchronous client; ariadne-codegen copies this file
from clients/python/codegen/base_clients/ into the generated package. The work is done
by the hand-written supportdesk_client modules."""

from typing import Any

import httpx
from pydantic import BaseModel as PydanticBaseModel
from pydantic_core import to_jsonable_python

from supportdesk_client.answers import read_data
from supportdesk_client.requests import graphql_request
from supportdesk_client.transport import SyncTransport

from .base_model import UNSET


class SyncBaseClient(SyncTransport):
    def execute(
        self,
        query: str,
        operation_name: str | None = None,
        variables: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> httpx.Response:
        request = graphql_request(query, operation_name, json_variables(variables or {}))
        return self.send(request, **kwargs)

    def get_data(self, response: httpx.Response) -> dict[str, Any]:
        return read_data(response)


def json_variables(variables: dict[str, Any]) -> dict[str, Any]:
    """Models as the schema names their fields, without what was never set."""
    return {
        name: to_jsonable_python(_plain(value))
        for name, value in variables.items()
        if value is not UNSET
    }


def _plain(value: Any) -> Any:
    if isinstance(value, PydanticBaseModel):
        return value.model_dump(by_alias=True, exclude_unset=True)
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value

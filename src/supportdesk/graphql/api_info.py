"""apiInfo: confirms a key works and says whose it is (docs/api.md)."""

from __future__ import annotations

from typing import cast

import strawberry
from strawberry.scalars import JSON

from supportdesk import API_VERSION
from supportdesk.graphql.context import Info
from supportdesk.graphql.scalars import serialise_datetime


@strawberry.type
class ApiInfoQueries:
    @strawberry.field(description="The API version, the workspace, the key and its machine user.")
    def api_info(self, info: Info) -> JSON | None:
        principal = info.context.principal
        return cast(
            JSON,
            {
                "apiVersion": API_VERSION,
                "workspace": {"id": principal.workspace_id, "name": principal.workspace_name},
                "key": {
                    "id": principal.key_id,
                    "keyPrefix": principal.key_prefix,
                    "scopes": sorted(principal.scopes),
                    "expiresAt": serialise_datetime(principal.expires_at)
                    if principal.expires_at
                    else None,
                },
                "machineUser": {
                    "id": principal.machine_user_id,
                    "name": principal.machine_user_name,
                },
            },
        )

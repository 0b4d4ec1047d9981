from typing import Optional

from .base_model import BaseModel
from .fragments import ApiKeyFields, PageInfoFields


class ApiKeys(BaseModel):
    api_keys: Optional["ApiKeysApiKeys"]


class ApiKeysApiKeys(BaseModel):
    total_count: int
    page_info: "ApiKeysApiKeysPageInfo"
    edges: list["ApiKeysApiKeysEdges"]


ApiKeysApiKeysPageInfo = PageInfoFields


class ApiKeysApiKeysEdges(BaseModel):
    cursor: str
    node: "ApiKeysApiKeysEdgesNode"


class ApiKeysApiKeysEdgesNode(ApiKeyFields):
    machine_user: Optional["ApiKeysApiKeysEdgesNodeMachineUser"]


class ApiKeysApiKeysEdgesNodeMachineUser(BaseModel):
    id: str
    name: Optional[str]


ApiKeys.model_rebuild()
ApiKeysApiKeys.model_rebuild()
ApiKeysApiKeysEdges.model_rebuild()
ApiKeysApiKeysEdgesNode.model_rebuild()

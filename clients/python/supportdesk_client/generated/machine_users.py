from typing import Optional

from .base_model import BaseModel
from .fragments import MachineUserFields, PageInfoFields


class MachineUsers(BaseModel):
    machine_users: Optional["MachineUsersMachineUsers"]


class MachineUsersMachineUsers(BaseModel):
    total_count: int
    page_info: "MachineUsersMachineUsersPageInfo"
    edges: list["MachineUsersMachineUsersEdges"]


MachineUsersMachineUsersPageInfo = PageInfoFields


class MachineUsersMachineUsersEdges(BaseModel):
    cursor: str
    node: "MachineUsersMachineUsersEdgesNode"


MachineUsersMachineUsersEdgesNode = MachineUserFields
MachineUsers.model_rebuild()
MachineUsersMachineUsers.model_rebuild()
MachineUsersMachineUsersEdges.model_rebuild()

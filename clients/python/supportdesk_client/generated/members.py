from typing import Optional

from .base_model import BaseModel
from .fragments import MemberFields, PageInfoFields


class Members(BaseModel):
    members: Optional["MembersMembers"]


class MembersMembers(BaseModel):
    total_count: int
    page_info: "MembersMembersPageInfo"
    edges: list["MembersMembersEdges"]


MembersMembersPageInfo = PageInfoFields


class MembersMembersEdges(BaseModel):
    cursor: str
    node: "MembersMembersEdgesNode"


MembersMembersEdgesNode = MemberFields
Members.model_rebuild()
MembersMembers.model_rebuild()
MembersMembersEdges.model_rebuild()

from typing import Optional

from .base_model import BaseModel
from .fragments import MemberFields, MutationErrorFields


class RemoveMember(BaseModel):
    remove_member: Optional["RemoveMemberRemoveMember"]


class RemoveMemberRemoveMember(BaseModel):
    member: Optional["RemoveMemberRemoveMemberMember"]
    error: Optional["RemoveMemberRemoveMemberError"]


RemoveMemberRemoveMemberMember = MemberFields
RemoveMemberRemoveMemberError = MutationErrorFields
RemoveMember.model_rebuild()
RemoveMemberRemoveMember.model_rebuild()

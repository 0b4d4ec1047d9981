from typing import Optional

from .base_model import BaseModel
from .fragments import MemberFields, MutationErrorFields


class UpdateMember(BaseModel):
    update_member: Optional["UpdateMemberUpdateMember"]


class UpdateMemberUpdateMember(BaseModel):
    member: Optional["UpdateMemberUpdateMemberMember"]
    error: Optional["UpdateMemberUpdateMemberError"]


UpdateMemberUpdateMemberMember = MemberFields
UpdateMemberUpdateMemberError = MutationErrorFields
UpdateMember.model_rebuild()
UpdateMemberUpdateMember.model_rebuild()

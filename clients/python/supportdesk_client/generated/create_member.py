from typing import Optional

from .base_model import BaseModel
from .fragments import MemberFields, MutationErrorFields


class CreateMember(BaseModel):
    create_member: Optional["CreateMemberCreateMember"]


class CreateMemberCreateMember(BaseModel):
    member: Optional["CreateMemberCreateMemberMember"]
    invitation_url: Optional[str]
    error: Optional["CreateMemberCreateMemberError"]


CreateMemberCreateMemberMember = MemberFields
CreateMemberCreateMemberError = MutationErrorFields
CreateMember.model_rebuild()
CreateMemberCreateMember.model_rebuild()

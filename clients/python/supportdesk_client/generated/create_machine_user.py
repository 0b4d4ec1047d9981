from typing import Optional

from .base_model import BaseModel
from .fragments import MachineUserFields, MutationErrorFields


class CreateMachineUser(BaseModel):
    create_machine_user: Optional["CreateMachineUserCreateMachineUser"]


class CreateMachineUserCreateMachineUser(BaseModel):
    machine_user: Optional["CreateMachineUserCreateMachineUserMachineUser"]
    error: Optional["CreateMachineUserCreateMachineUserError"]


CreateMachineUserCreateMachineUserMachineUser = MachineUserFields
CreateMachineUserCreateMachineUserError = MutationErrorFields
CreateMachineUser.model_rebuild()
CreateMachineUserCreateMachineUser.model_rebuild()

from typing import Optional

from .base_model import BaseModel
from .fragments import MachineUserFields, MutationErrorFields


class UpdateMachineUser(BaseModel):
    update_machine_user: Optional["UpdateMachineUserUpdateMachineUser"]


class UpdateMachineUserUpdateMachineUser(BaseModel):
    machine_user: Optional["UpdateMachineUserUpdateMachineUserMachineUser"]
    error: Optional["UpdateMachineUserUpdateMachineUserError"]


UpdateMachineUserUpdateMachineUserMachineUser = MachineUserFields
UpdateMachineUserUpdateMachineUserError = MutationErrorFields
UpdateMachineUser.model_rebuild()
UpdateMachineUserUpdateMachineUser.model_rebuild()

"""Machine users: the API principals that keys belong to, one per integrating system."""

from supportdesk.domain.machine_users.service import (
    MachineUser,
    count_machine_users,
    create_machine_user,
    get_machine_users,
    list_machine_users,
    managed_machine_user,
    update_machine_user,
)

__all__ = [
    "MachineUser",
    "count_machine_users",
    "create_machine_user",
    "get_machine_users",
    "list_machine_users",
    "managed_machine_user",
    "update_machine_user",
]

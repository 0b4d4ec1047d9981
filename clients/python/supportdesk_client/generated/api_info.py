from typing import Any, Optional

from .base_model import BaseModel


class ApiInfo(BaseModel):
    api_info: Optional[Any]

"""Saved views: queue filters kept under a name, a member's own or shared by an admin."""

from supportdesk.domain.saved_views.service import (
    MAX_FILTER_KEYS,
    MAX_NAME,
    MAX_VIEWS,
    SavedView,
    delete_saved_view,
    get_saved_view,
    list_saved_views,
    save_view,
)

__all__ = [
    "MAX_FILTER_KEYS",
    "MAX_NAME",
    "MAX_VIEWS",
    "SavedView",
    "delete_saved_view",
    "get_saved_view",
    "list_saved_views",
    "save_view",
]

from typing import Optional

from .base_model import BaseModel
from .fragments import IssueFields, MessageFields, MutationErrorFields


class AddNote(BaseModel):
    add_note: Optional["AddNoteAddNote"]


class AddNoteAddNote(BaseModel):
    issue: Optional["AddNoteAddNoteIssue"]
    message: Optional["AddNoteAddNoteMessage"]
    error: Optional["AddNoteAddNoteError"]


AddNoteAddNoteIssue = IssueFields
AddNoteAddNoteMessage = MessageFields
AddNoteAddNoteError = MutationErrorFields
AddNote.model_rebuild()
AddNoteAddNote.model_rebuild()

"""The task board: builds, tasks, comments with parsed blocks, markers, attachments, audit."""

from vitrina.team.board.records import Attachment, AuditEntry, Build, Comment, Marker, Task
from vitrina.team.board.store import BoardStore, board_url

__all__ = [
    "Attachment",
    "AuditEntry",
    "BoardStore",
    "Build",
    "Comment",
    "Marker",
    "Task",
    "board_url",
]

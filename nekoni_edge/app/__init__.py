"""The application: what each client message does, one handler per message type, grouped by
area, shared by every door (the DataChannel session and the box's control socket).

Importing this package registers every area's handlers and proves the table complete.
"""

from nekoni_edge.app import approvals, chat, devices, documents, skills, sync, tracing
from nekoni_edge.app.registry import HANDLERS, Box, Context, check_coverage, dispatch

__all__ = ["HANDLERS", "Box", "Context", "approvals", "chat", "check_coverage", "devices",
           "dispatch", "documents", "skills", "sync", "tracing"]

check_coverage()

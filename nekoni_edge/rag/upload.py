"""Reassembly of ``rag_upload_*`` messages, sans-IO: limits checked before anything is kept."""

from __future__ import annotations

import base64
import binascii
import logging
import math
from dataclasses import dataclass, field
from typing import Any

from nekoni_edge.config import Settings
from nekoni_edge.errors import NekoniError
from nekoni_edge.rag.knowledge import base_name

_LOGGER = logging.getLogger(__name__)

MAX_FILE_BYTES = Settings.rag_max_file_bytes
MAX_SEGMENT_CHARS = 15 * 1024  # base64 text per rag_upload_chunk
IDLE_TIMEOUT_S = 60.0
MAX_UPLOADS_PER_DEVICE = 4
DEVICE_MEMORY_CAP = 32 * 1024 * 1024
MAX_UPLOAD_ID = 128
REFUSALS_KEPT = 16  # refused uploads whose further segments get the refusal again


@dataclass
class DeviceBudget:
    """What one device's unfinished uploads may hold, across all its channels and peer
    connections: a device that opened four channels on each of four connections once buffered
    ~120 MiB where each channel kept to its own 32 MiB."""

    memory_cap: int = DEVICE_MEMORY_CAP
    max_uploads: int = MAX_UPLOADS_PER_DEVICE
    buffered: int = 0  # bytes of unfinished uploads
    uploads: int = 0  # uploads in progress


class UploadError(NekoniError):
    """An upload was refused; nothing of it is kept."""

    def __init__(self, upload_id: str | None, message: str, detail: str | None = None) -> None:
        super().__init__(message)
        self.upload_id = upload_id
        self.message = message
        self.detail = detail  # the limit in the protocol's terms, for clients and the log

    def reply(self) -> dict[str, Any]:
        reply: dict[str, Any] = {"type": "rag_error", "message": self.message}
        if self.upload_id is not None:
            reply["uploadId"] = self.upload_id
        if self.detail is not None:
            reply["detail"] = self.detail
        return reply


@dataclass
class _Upload:
    filename: str
    total: int
    parts: dict[int, bytes] = field(default_factory=dict)
    size: int = 0
    last_activity: float = 0.0


class UploadAssembler:
    """One channel's uploads in progress, within its device's ``budget`` (shared by every
    channel of that device; a private one when none is given)."""

    def __init__(
        self,
        *,
        max_file_bytes: int = MAX_FILE_BYTES,
        budget: DeviceBudget | None = None,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
    ) -> None:
        self.max_file_bytes = max_file_bytes
        self.budget = budget or DeviceBudget()
        self.idle_timeout_s = idle_timeout_s
        self._uploads: dict[str, _Upload] = {}
        self._refused: dict[str, UploadError] = {}  # oldest first, REFUSALS_KEPT at most

    @property
    def max_chunks(self) -> int:
        """The most segments a file of the maximum size can need."""
        return math.ceil(self.max_file_bytes / (MAX_SEGMENT_CHARS * 3 // 4))

    @property
    def in_progress(self) -> int:
        return len(self._uploads)

    @property
    def buffered(self) -> int:
        return sum(u.size for u in self._uploads.values())

    def start(self, upload_id: object, filename: object, total: object, now: float) -> str:
        """``rag_upload_start``; returns the base name that will be stored."""
        try:
            name = self._start(upload_id, filename, total, now)
        except UploadError as exc:
            if isinstance(upload_id, str) and upload_id not in self._uploads:
                self._refuse(upload_id, exc)
            raise
        assert isinstance(upload_id, str)  # checked by _start
        self._refused.pop(upload_id, None)
        return name

    def _refuse(self, upload_id: str, error: UploadError) -> None:
        # nekoni's apps send every segment after a refused start: each is answered with the
        # refusal in words (the knowledge view shows the last error), not "no such upload". A
        # malformed message's refusal is the client's to read once.
        if error.detail is None:
            return
        self._refused.pop(upload_id, None)
        self._refused[upload_id] = error
        while len(self._refused) > REFUSALS_KEPT:
            del self._refused[next(iter(self._refused))]

    def _start(self, upload_id: object, filename: object, total: object, now: float) -> str:
        if not isinstance(upload_id, str) or not upload_id or len(upload_id) > MAX_UPLOAD_ID:
            raise UploadError(None, "uploadId must be a non-empty string")
        if not isinstance(filename, str) or not filename.strip():
            raise UploadError(upload_id, "filename must be a non-empty string")
        if total == 0 and not isinstance(total, bool):  # nekoni's apps send 0 for no bytes
            raise UploadError(upload_id, f"{filename.strip()}: this file is empty, so there "
                                         "is nothing to add. Choose a file with some text.")
        if isinstance(total, bool) or not isinstance(total, int) or total < 1:
            raise UploadError(upload_id, "totalChunks must be a positive integer")
        if total > self.max_chunks:
            raise UploadError(upload_id, self._too_large(filename.strip()), f"totalChunks {total}"
                              f" is more than a file of {self.max_file_bytes // 2**20} MiB "
                              f"needs ({self.max_chunks})")
        if upload_id in self._uploads:
            raise UploadError(upload_id, "uploadId is already in progress")
        if self.budget.uploads >= self.budget.max_uploads:
            raise UploadError(upload_id, f"{filename.strip()}: the box is already adding "
                              f"{self.budget.max_uploads} documents from this device. Wait for "
                              "one of them to finish, then add this one again.",
                              f"at most {self.budget.max_uploads} uploads at once from one "
                              "device")
        name = base_name(filename)
        self._uploads[upload_id] = _Upload(name, total, last_activity=now)
        self.budget.uploads += 1
        _LOGGER.info("upload %s started: %s in %d chunks", upload_id[:32], name, total)
        return name

    def add(self, upload_id: object, index: object, content: object, now: float
            ) -> tuple[int, int, bytes | None]:
        """``rag_upload_chunk``; returns (received, total, the whole file once complete)."""
        if isinstance(upload_id, str) and upload_id in self._refused:
            raise self._refused[upload_id]
        if not isinstance(upload_id, str) or upload_id not in self._uploads:
            raise UploadError(upload_id if isinstance(upload_id, str) else None,
                              "no such upload in progress (send rag_upload_start first)")
        upload = self._uploads[upload_id]
        try:
            part = self._checked_part(upload, upload_id, index, content)
        except UploadError as exc:
            self.abort(upload_id)
            self._refuse(upload_id, exc)
            raise
        assert isinstance(index, int)  # checked above
        upload.parts[index] = part
        upload.size += len(part)
        self.budget.buffered += len(part)
        upload.last_activity = now
        if len(upload.parts) < upload.total:
            return len(upload.parts), upload.total, None
        self._forget(upload_id)
        return upload.total, upload.total, b"".join(upload.parts[i] for i in range(upload.total))

    def _checked_part(self, upload: _Upload, upload_id: str, index: object, content: object
                      ) -> bytes:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < upload.total:
            raise UploadError(upload_id, f"chunk index {index!r} is out of range "
                              f"0..{upload.total - 1}")
        if index in upload.parts:
            raise UploadError(upload_id, f"chunk {index} was already received")
        if not isinstance(content, str) or len(content) > MAX_SEGMENT_CHARS:
            raise UploadError(upload_id, f"content must be base64 of at most "
                              f"{MAX_SEGMENT_CHARS} characters")
        try:
            part = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise UploadError(upload_id, f"chunk {index} is not valid base64") from exc
        if upload.size + len(part) > self.max_file_bytes:
            raise UploadError(upload_id, self._too_large(upload.filename),
                              f"file is larger than {self.max_file_bytes // 2**20} MiB")
        if self.budget.buffered + len(part) > self.budget.memory_cap:
            raise UploadError(upload_id, f"{upload.filename}: the box is holding as much from "
                              "this device as it can at once. Wait for the documents being "
                              "added to finish, then add this one again.",
                              "too much upload data buffered for this device")
        return part

    def _too_large(self, filename: str) -> str:
        return (f"{filename}: this file is larger than the box takes "
                f"({self.max_file_bytes // 2**20} MiB). Split it into smaller files, or save "
                "it without its pictures, then add it.")

    def filename(self, upload_id: str) -> str | None:
        upload = self._uploads.get(upload_id)
        return upload.filename if upload else None

    def _forget(self, upload_id: str) -> bool:
        upload = self._uploads.pop(upload_id, None)
        if upload is None:
            return False
        self.budget.buffered -= upload.size
        self.budget.uploads -= 1
        return True

    def abort(self, upload_id: str) -> None:
        """Forget an upload and free its buffer."""
        if self._forget(upload_id):
            _LOGGER.info("upload %s aborted; buffer freed", upload_id[:32])

    def expire(self, now: float) -> list[tuple[str, str]]:
        """Drop uploads idle for longer than the timeout; return their ids and file names."""
        idle = [(uid, u.filename) for uid, u in self._uploads.items()
                if now - u.last_activity > self.idle_timeout_s]
        for upload_id, _ in idle:
            self.abort(upload_id)
        return idle

    def clear(self) -> None:
        for upload_id in list(self._uploads):
            self._forget(upload_id)

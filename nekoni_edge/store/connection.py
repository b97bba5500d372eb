"""Open SQLite connections with sqlite-vec loaded, on any interpreter we support.

The standard library's ``sqlite3`` is used when it can load extensions (Debian's and
Raspberry Pi OS's Python can); otherwise ``sqlean`` (a wheel bundling its own SQLite with
loading enabled). Every connection is prepared by one hook, ``prepare``.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
from pathlib import Path
from types import ModuleType
from typing import Any

from nekoni_edge.errors import StoreError

_LOGGER = logging.getLogger(__name__)

BUSY_TIMEOUT_MS = 5000


def stdlib_can_load_extensions() -> bool:
    """True if this interpreter's sqlite3 was built with extension loading."""
    return hasattr(sqlite3.Connection, "enable_load_extension")


def driver_module() -> ModuleType:
    """The DB-API module to use: stdlib sqlite3 if it can load extensions, else sqlean."""
    if stdlib_can_load_extensions():
        return sqlite3
    try:
        import sqlean  # only needed on interpreters without extension loading
    except ImportError as exc:
        raise StoreError(
            "this Python's sqlite3 cannot load extensions and the 'sqlean-py' package is not "
            "installed: install it (pip install sqlean-py) or use a Python whose sqlite3 "
            "supports enable_load_extension (Debian's /usr/bin/python3 does)"
        ) from exc
    module: ModuleType = sqlean
    return module


def prepare(conn: Any) -> None:
    """The one hook every connection goes through: sqlite-vec, WAL, durability, FKs."""
    try:
        import sqlite_vec

        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
    except Exception as exc:
        raise StoreError(f"could not load the sqlite-vec extension: {exc}") from exc
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise StoreError(f"could not switch the database to WAL (journal_mode={mode})")
    # FULL: a transaction acknowledged to a phone survives power loss, not only a crash.
    conn.execute("PRAGMA synchronous = FULL")
    conn.execute("PRAGMA foreign_keys = ON")


def _store_error(path: Path, exc: Exception) -> StoreError:
    if "locked" in str(exc) or "busy" in str(exc):
        return StoreError(f"database {path} is locked by another process (is another "
                          "nekoni-edge running on this data dir?)")
    return StoreError(f"cannot use database {path}: {exc}")


def connect(path: Path, *, query_only: bool = False) -> Any:
    """Open and prepare one connection in autocommit mode (we issue BEGIN ourselves);
    ``query_only``: one that cannot change the file (the readers: writes are the writer's)."""
    module = driver_module()
    path.parent.mkdir(parents=True, exist_ok=True)
    # The owner's conversations: 0600 (SQLite gives the -wal and -shm files the same mode).
    # Created only if absent: closing any descriptor of an open database drops every POSIX
    # lock this process holds on it, SQLite's included, and another process closing its own
    # connection then takes the file for unused, checkpoints and deletes the WAL that this
    # process goes on writing into (docs/TRAPS.md).
    if not path.exists():
        with contextlib.suppress(FileExistsError):
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
    os.chmod(path, 0o600)
    try:
        conn = module.connect(str(path), isolation_level=None, check_same_thread=False)
    except module.Error as exc:
        raise StoreError(f"cannot open database {path}: {exc}") from exc
    try:
        prepare(conn)
        if query_only:
            conn.execute("PRAGMA query_only = ON")
    except module.OperationalError as exc:
        conn.close()
        raise _store_error(path, exc) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def probe_versions(directory: Path) -> tuple[str, str]:
    """(SQLite, sqlite-vec) versions of a connection made as the box makes them, on a scratch
    file in ``directory`` (``nekoni-edge doctor``)."""
    conn = connect(directory / "probe.sqlite")
    try:
        return (str(conn.execute("SELECT sqlite_version()").fetchone()[0]),
                str(conn.execute("SELECT vec_version()").fetchone()[0]))
    finally:
        conn.close()

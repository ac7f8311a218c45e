"""Atomic file writes: a reader sees the old file or the new one, never half; and groups of files (a day's
pages and summary) that change together or say that they may not have.

A group write (``write_together``) cannot rename several files in one system call, so it brackets the renames
with a marker, ``.<group>.replacing`` beside the files:

1. it takes an OS lock on the marker (created if missing), which serializes writers of the group and which a
   killed writer loses with its process;
2. it writes every file as a temporary ``.<name>.XXXXXXXX`` beside its target and fsyncs it (marker: ``writing``);
3. it sets the marker to ``replacing`` and fsyncs it, renames every temporary onto its target, fsyncs the folder;
4. it deletes the marker, then lets the lock go.

A kill in step 2 leaves every old file (and temporaries, which ``sweep_leftovers`` removes); a kill in step 3
leaves a mix of new and old files under a ``replacing`` marker that no process holds: the group says it is stale
(``replacement_interrupted``) until the next whole write of it, which keeps the marker ``replacing`` until its
own renames are done. A reader never sees a ``replacing`` marker of a live writer as stale: it waits for the
renames (microseconds each) and looks again."""

from __future__ import annotations

import fcntl
import os
import re
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

# what mkstemp(prefix=".<name>.") names a temporary: the target's name and 8 characters of its alphabet
TEMP_NAME = re.compile(r"^\.(?P<name>.+)\.[a-z0-9_]{8}$")
MARKER_SUFFIX = ".replacing"
MARKER_NAME = re.compile(rf"^\.(?P<group>.+){re.escape(MARKER_SUFFIX)}$")
WRITING, REPLACING = b"writing\n", b"replacing\n"


def _write_temp(path: Path, text: str) -> str:
    """``text`` in a new temporary beside ``path``, flushed to disk; returns its name."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); reports and the site are meant to be read,
        # e.g. by a web server running as another user, so give them a plain file's mode
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def atomic_write_text(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = _write_temp(path, text)
    try:
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def marker_path(folder: Path, group: str) -> Path:
    return folder / f".{group}{MARKER_SUFFIX}"


def _is_current(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (a writer may have deleted it meanwhile)."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return False
    mine = os.fstat(fd)
    return (found.st_dev, found.st_ino) == (mine.st_dev, mine.st_ino)


def _hold(marker: Path) -> int:
    """The marker open and locked exclusively (created if missing); the lock waits for another writer."""
    while True:
        fd = os.open(marker, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        if _is_current(fd, marker):
            return fd
        os.close(fd)  # the writer before us deleted it once done: lock the file that is there now


def _set(fd: int, state: bytes) -> None:
    os.ftruncate(fd, 0)
    os.pwrite(fd, state, 0)
    os.fsync(fd)


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_together(texts: Mapping[Path, str], group: str) -> list[Path]:
    """Write ``texts`` (path -> text, all in one folder) as one group named ``group``: afterwards every file is
    new; if the process dies first, every file is old, or the group's marker says it is stale (module doc)."""
    folders = {path.parent for path in texts}
    if len(folders) != 1:
        raise ValueError(f"a group write is one folder's files, not {sorted(map(str, folders))}")
    (folder,) = folders
    folder.mkdir(parents=True, exist_ok=True)
    marker = marker_path(folder, group)
    fd = _hold(marker)
    temps: dict[Path, str] = {}
    renamed: set[Path] = set()
    try:
        # a marker left `replacing` by a killed writer stays so until this write's renames are done
        stale_before = os.pread(fd, len(REPLACING), 0) == REPLACING
        if not stale_before:
            _set(fd, WRITING)
        for path, text in texts.items():
            temps[path] = _write_temp(path, text)
        _set(fd, REPLACING)
        for path, tmp in temps.items():
            os.replace(tmp, path)
            renamed.add(path)
        _fsync_dir(folder)
        os.unlink(marker)
    except BaseException:
        for path, tmp in temps.items():
            if path not in renamed:
                Path(tmp).unlink(missing_ok=True)
        if not renamed and not stale_before:
            marker.unlink(missing_ok=True)  # nothing was replaced: the old files stand whole
        raise
    finally:
        os.close(fd)
    return list(texts)


def replacement_interrupted(marker: Path) -> bool:
    """Whether the group of ``marker`` is stale: a group write stopped during its renames, so its files may be
    some new and some old. A live writer's renames are waited for; its writing phase leaves the old files."""
    while True:
        try:
            fd = os.open(marker, os.O_RDONLY)
        except FileNotFoundError:
            return False
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                held = False
            except BlockingIOError:
                held = True
            state = os.pread(fd, len(REPLACING), 0)
            if not _is_current(fd, marker):
                continue
            if state != REPLACING:
                return False
            if not held:
                return True
            fcntl.flock(fd, fcntl.LOCK_SH)  # wait for the live writer's renames, then look again
        finally:
            os.close(fd)


def sweep_leftovers(folder: Path, group_of: Callable[[str], str | None], before: float) -> list[Path]:
    """Remove what killed group writers left in ``folder`` and return it: temporaries of the files ``group_of``
    names a group for (``.<name>.XXXXXXXX``, nothing else), last changed before ``before`` (a Unix time: the
    step's start) and of a group no live writer holds; and ``writing`` markers no live writer holds (their
    write stopped before any rename). ``replacing`` markers stay: their groups are stale until rewritten."""
    if not folder.is_dir():
        return []
    removed: list[Path] = []
    entries = sorted(folder.iterdir())
    temps = [(p, group) for p in entries if (m := TEMP_NAME.match(p.name)) and (group := group_of(m["name"]))]
    markers = [(p, m["group"]) for p in entries if (m := MARKER_NAME.match(p.name))]
    for path, group in temps:
        try:
            if path.stat().st_mtime >= before:
                continue  # maybe this step's own, or a writer's that started after it
        except FileNotFoundError:
            continue
        busy, fd = _try_hold(marker_path(folder, group))
        if busy:
            continue  # a live writer of the group: the temporary may be its own
        try:
            path.unlink(missing_ok=True)
            removed.append(path)
        finally:
            if fd is not None:
                os.close(fd)
    for marker, _group in markers:
        busy, fd = _try_hold(marker)
        if busy or fd is None:
            continue
        try:
            if os.pread(fd, len(REPLACING), 0) != REPLACING:
                marker.unlink()
                removed.append(marker)
        finally:
            os.close(fd)
    return removed


def _try_hold(marker: Path) -> tuple[bool, int | None]:
    """(whether a live writer holds the marker, the marker open and locked without waiting, or None when there
    is no marker or it is held)."""
    try:
        fd = os.open(marker, os.O_RDWR)
    except FileNotFoundError:
        return False, None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return True, None
    if not _is_current(fd, marker):
        os.close(fd)
        return False, None
    return False, fd

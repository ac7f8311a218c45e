"""The raw layer on disk: one folder per repo and day, payloads as received.

Layout: ``<home>/raw/<owner>/<name>/<YYYY-MM-DD>/`` holding one JSON-lines file
per payload kind and ``manifest.json``. A day is written whole or not at all:
it is assembled in a temporary folder and swapped into place by rename.

The swap is one atomic exchange of the two folders (Linux ``renameat2(RENAME_EXCHANGE)``), taken under an
``flock`` on the repository's ``.landing.lock``: a reader finds the old day or the new one, never none, and
two landings of one day at once both succeed, the later swap winning. Where the exchange is not available
(another kernel, a file system without it) the swap is two renames under the same lock: landings still
take turns, but a reader may find the day missing for that instant.

The manifest records, per payload kind, the rows landed and the SHA-256 of the file (``landed_files``), and
every reader checks them (``check_landing``): a file cut short, at a line boundary or inside a line, or
changed in any way, is a ``DamagedLandingError`` naming the file, the counts and the first line that is not
JSON. A day landed before the record existed reads as *unverified*: still read, with only the checks its
bytes allow (a last line cut off), and said so by its callers.

Landed text is valid UTF-8. JSON may carry a lone UTF-16 surrogate (``"\\ud800"``), which Python
decodes into a string no UTF-8 encoder takes; such a string is repaired at landing (each lone
surrogate becomes U+FFFD) and counted in the manifest's ``repaired_strings``, so one bad title
costs one character, not the day.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import hashlib
import json
import os
import re
import shutil
import uuid
from pathlib import Path

from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.vocabulary import MANIFEST, PAYLOAD_KINDS, DayPayload, Manifest


def repo_dir(raw_root: Path, repo: RepoRef) -> Path:
    """The folder holding every landed day of ``repo``."""
    return raw_root / repo.owner / repo.name


def day_dir(raw_root: Path, repo: RepoRef, day: str) -> Path:
    return repo_dir(raw_root, repo) / day


# what json.dumps(row, ensure_ascii=False, separators=(",", ":")) builds on each call, made once
_ROW_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def row_line(row: dict) -> str:
    """A row as its JSON line (without the line break)."""
    return _ROW_ENCODER.encode(row)


class RowLines:
    """One run's JSON lines (UTF-8, with their line break) of the rows a source serves again on later days, made once each.

    The sample source hands out the same dict for an item (and its PR) on every day the item is touched: a
    year's 94,000 item rows are 38,000 dicts, and re-serializing each day's was a third of the landing's
    JSON work. Rows are known by identity; each entry keeps its row alive, so no other row can take its
    id while the memo lives, and the ``is`` test makes a stale entry impossible anyway. Events and
    comments belong to one window and are not kept. Use one per run: it holds the run's item lines."""

    KINDS = ("issues", "pulls")

    def __init__(self) -> None:
        self._lines: dict[int, tuple[dict, bytes]] = {}

    def line(self, row: dict) -> bytes:
        hit = self._lines.get(id(row))
        if hit is not None and hit[0] is row:
            return hit[1]
        data = f"{row_line(row)}\n".encode("utf-8")
        self._lines[id(row)] = (row, data)
        return data


_SURROGATE = re.compile("[\ud800-\udfff]")


def repair_text(value):
    """``value`` with every string made valid UTF-8, and how many strings that changed.

    A surrogate pair left as two code points is joined into its character; a lone surrogate
    becomes U+FFFD. Keys are repaired too. Only called on what failed to encode, so the common
    case costs nothing."""
    if isinstance(value, str):
        if not _SURROGATE.search(value):
            return value, 0
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace"), 1
    if isinstance(value, dict):
        out, changed = {}, 0
        for key, item in value.items():
            key, n_key = repair_text(key)
            out[key], n_item = repair_text(item)
            changed += n_key + n_item
        return out, changed
    if isinstance(value, list):
        pairs = [repair_text(item) for item in value]
        return [item for item, _ in pairs], sum(n for _, n in pairs)
    return value, 0


def _kind_bytes(kind: str, rows: list[dict], lines: RowLines | None) -> tuple[bytes, int]:
    """A payload kind's JSON lines as UTF-8, and how many strings had to be repaired for it."""
    try:
        if lines is not None and kind in RowLines.KINDS:
            return b"".join([lines.line(row) for row in rows]), 0  # their UTF-8 is made once too
        return "".join([f"{row_line(row)}\n" for row in rows]).encode("utf-8"), 0
    except UnicodeEncodeError:
        pass  # some row holds a lone surrogate: repair row by row (rare, so the fast path stays fast)
    chunks, repaired = [], 0
    for row in rows:
        fixed, changed = repair_text(row)
        repaired += changed
        chunks.append(f"{row_line(fixed)}\n".encode("utf-8"))
    return b"".join(chunks), repaired


# the manifest's key for what each payload file holds: kind -> {"rows": N, "sha256": hex digest}
LANDED_FILES = "landed_files"
LANDING_LOCK = ".landing.lock"


class DamagedLandingError(ValueError):
    """A landed day that does not read back as it was written; ``path`` is the file at fault."""

    def __init__(self, path: Path, detail: str):
        super().__init__(f"landed file {str(path)!r} is damaged: {detail}; land the day again to repair it "
                         "(materialize its raw_activity again, which fetches it afresh)")
        self.path, self.detail = path, detail


def file_record(data: bytes) -> dict:
    """``landed_files``' entry for a payload file's bytes: one row per line, each ending with its line break."""
    return {"rows": data.count(b"\n"), "sha256": hashlib.sha256(data).hexdigest()}


def write_day(raw_root: Path, repo: RepoRef, day: str, payload: DayPayload, lines: RowLines | None = None) -> Path:
    """Land a day atomically; the previous landing stays until the new one is whole. ``lines`` (a run's
    memo, for a source whose item rows repeat across days) serializes those rows once; the bytes are the same.
    Strings that are not valid UTF-8 are repaired and counted (the module docstring)."""
    final = day_dir(raw_root, repo, day)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{day}-{uuid.uuid4().hex}"
    tmp.mkdir()
    old = None
    try:
        repaired = 0
        landed: dict[str, dict] = {}
        for kind, rows in payload.payloads().items():
            data, changed = _kind_bytes(kind, rows, lines)
            repaired += changed
            landed[kind] = file_record(data)
            (tmp / f"{kind}.jsonl").write_bytes(data)
        manifest = payload.manifest.to_json()
        manifest[LANDED_FILES] = landed
        if repaired:
            manifest["repaired_strings"] = repaired
        try:
            text = json.dumps(manifest, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # a note or reason quoting payload text: repaired the same way, not counted again
            text = json.dumps(repair_text(manifest)[0], ensure_ascii=False, indent=2, sort_keys=True) + "\n"
            data = text.encode("utf-8")
        (tmp / MANIFEST).write_bytes(data)
        for f in tmp.iterdir():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())
        old = _swap_in(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return final


@contextlib.contextmanager
def _landing_lock(folder: Path):
    """The repository's landing lock, exclusive: held only around a day's swap (the kernel drops it with
    its process, so a killed landing blocks nothing)."""
    fd = os.open(folder / LANDING_LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _swap_in(tmp: Path, final: Path) -> Path | None:
    """Put the folder ``tmp`` in place of ``final``; returns where the previous landing now is (to delete)."""
    with _landing_lock(final.parent):
        if not final.exists():
            os.rename(tmp, final)
            return None
        if _exchange(tmp, final):
            return tmp  # tmp now holds the previous landing
        old = final.parent / f".old-{final.name}-{uuid.uuid4().hex}"
        os.rename(final, old)
        os.rename(tmp, final)
        return old


_LIBC = ctypes.CDLL(None, use_errno=True)
_RENAMEAT2 = getattr(_LIBC, "renameat2", None)
_AT_FDCWD, _RENAME_EXCHANGE = -100, 2


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2``); False where the kernel, libc or file system has no
    exchange (the caller then falls back to two renames)."""
    if _RENAMEAT2 is None:
        return False
    if _RENAMEAT2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _manifest_json(path: Path) -> dict:
    """``manifest.json`` as an object; unreadable JSON is a ``DamagedLandingError`` naming the line."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise DamagedLandingError(path, f"byte {exc.start} is not UTF-8") from None
    except json.JSONDecodeError as exc:
        raise DamagedLandingError(path, f"line {exc.lineno} is not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(data, dict):
        raise DamagedLandingError(path, f"it holds {type(data).__name__}, not an object")
    return data


def _bad_line(data: bytes) -> str | None:
    """The first line of a JSON-lines file that is not one JSON value (said as a clause), or None."""
    for number, line in enumerate(data.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            json.loads(line)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            what = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
            cut = "" if number <= data.count(b"\n") else "; it is the file's last line, cut off before its line break"
            return f"line {number} is not valid JSON ({what}{cut})"
    return None


def _check_file(path: Path, want: object) -> None:
    if not (isinstance(want, dict) and isinstance(want.get("rows"), int) and isinstance(want.get("sha256"), str)):
        raise DamagedLandingError(path.parent / MANIFEST, f"its {LANDED_FILES} entry for {path.name} is {want!r}, "
                                  "not {'rows': N, 'sha256': '…'}")
    if not path.is_file():
        raise DamagedLandingError(path, f"it is missing; the manifest records {want['rows']} rows")
    data = path.read_bytes()
    got = file_record(data)
    if got == want:
        return
    bad = _bad_line(data)
    if got["rows"] != want["rows"]:
        detail = f"it holds {got['rows']} whole lines where the manifest records {want['rows']} rows"
    else:
        detail = f"it holds the {want['rows']} rows the manifest records, but not the bytes landed (SHA-256 differs)"
    raise DamagedLandingError(path, f"{bad}; {detail}" if bad else detail)


def _check_unverified(folder: Path) -> None:
    """What a landing without ``landed_files`` (older code) can be checked for: a last line cut off."""
    for kind in PAYLOAD_KINDS:
        path = folder / f"{kind}.jsonl"
        if not path.is_file() or not path.stat().st_size:
            continue
        with open(path, "rb") as fh:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) == b"\n":
                continue
        data = path.read_bytes()
        whole = data.count(b"\n")
        bad = _bad_line(data) or f"line {whole + 1} has no line break"
        raise DamagedLandingError(path, f"{bad} (a landing of older code, without row counts or hashes)")


def check_landing(folder: Path) -> tuple[dict, bool]:
    """The day folder's manifest object, and whether its payload files were verified against it (False: a
    landing of older code, checked only for a cut last line). A file that does not match is a
    ``DamagedLandingError``."""
    manifest = _manifest_json(folder / MANIFEST)
    recorded = manifest.get(LANDED_FILES)
    if recorded is None:
        _check_unverified(folder)
        return manifest, False
    if not isinstance(recorded, dict):
        raise DamagedLandingError(folder / MANIFEST, f"its {LANDED_FILES} is {recorded!r}, not an object")
    for kind, want in recorded.items():
        _check_file(folder / f"{kind}.jsonl", want)
    return manifest, True


def _rows(path: Path) -> list[dict]:
    rows = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DamagedLandingError(path, f"line {number} is not valid JSON ({exc.msg} at column {exc.colno})") from None
    return rows


# a reader that raced a landing's swap (the manifest of one landing, a file of the next) reads again
_READ_ATTEMPTS = 3


def read_landing(raw_root: Path, repo: RepoRef, day: str) -> tuple[DayPayload | None, bool]:
    """The landed day (None when it was never landed) and whether it was verified (``check_landing``).
    A damaged day is a ``DamagedLandingError``; the manifest read back holds no ``landed_files``."""
    folder = day_dir(raw_root, repo, day)
    path = folder / MANIFEST
    for attempt in range(1, _READ_ATTEMPTS + 1):
        before = _bytes_of(path)
        if before is None:
            return None, False
        try:
            manifest, verified = check_landing(folder)
            payload = DayPayload(manifest=Manifest.from_json(
                {k: v for k, v in manifest.items() if k != LANDED_FILES}, str(path)))
            for kind in PAYLOAD_KINDS:
                if (folder / f"{kind}.jsonl").is_file():
                    setattr(payload, kind, _rows(folder / f"{kind}.jsonl"))
            return payload, verified
        except (DamagedLandingError, FileNotFoundError):
            if attempt == _READ_ATTEMPTS or _bytes_of(path) == before:
                raise  # the same landing throughout: it is damaged, not swapped under the reader


def _bytes_of(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def read_day(raw_root: Path, repo: RepoRef, day: str) -> DayPayload | None:
    """The landed day, or None when it was never landed (``read_landing`` without the verification flag)."""
    return read_landing(raw_root, repo, day)[0]

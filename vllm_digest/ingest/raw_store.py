"""The raw layer on disk: one folder per repo and day, payloads as received.

Layout: ``<home>/raw/<owner>/<name>/<YYYY-MM-DD>/`` holding one JSON-lines file
per payload kind and ``manifest.json``. A day is written whole or not at all:
it is assembled in a temporary folder and swapped into place by rename.

Landed text is valid UTF-8. JSON may carry a lone UTF-16 surrogate (``"\\ud800"``), which Python
decodes into a string no UTF-8 encoder takes; such a string is repaired at landing (each lone
surrogate becomes U+FFFD) and counted in the manifest's ``repaired_strings``, so one bad title
costs one character, not the day.
"""

from __future__ import annotations

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


def write_day(raw_root: Path, repo: RepoRef, day: str, payload: DayPayload, lines: RowLines | None = None) -> Path:
    """Land a day atomically; the previous landing stays until the new one is whole. ``lines`` (a run's
    memo, for a source whose item rows repeat across days) serializes those rows once; the bytes are the same.
    Strings that are not valid UTF-8 are repaired and counted (the module docstring)."""
    final = day_dir(raw_root, repo, day)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{day}-{uuid.uuid4().hex}"
    tmp.mkdir()
    try:
        repaired = 0
        for kind, rows in payload.payloads().items():
            data, changed = _kind_bytes(kind, rows, lines)
            repaired += changed
            (tmp / f"{kind}.jsonl").write_bytes(data)
        manifest = payload.manifest.to_json()
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
        old = None
        if final.exists():
            old = final.parent / f".old-{day}-{uuid.uuid4().hex}"
            os.rename(final, old)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
    return final


def read_day(raw_root: Path, repo: RepoRef, day: str) -> DayPayload | None:
    """The landed day, or None when it was never landed."""
    folder = day_dir(raw_root, repo, day)
    if not (folder / MANIFEST).is_file():
        return None
    path = folder / MANIFEST
    payload = DayPayload(manifest=Manifest.from_json(json.loads(path.read_text(encoding="utf-8")), str(path)))
    for kind in PAYLOAD_KINDS:
        path = folder / f"{kind}.jsonl"
        if path.is_file():
            with open(path, encoding="utf-8") as fh:
                setattr(payload, kind, [json.loads(line) for line in fh if line.strip()])
    return payload

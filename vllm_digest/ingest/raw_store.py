"""The raw layer on disk: one folder per repo and day, payloads as received.

Layout: ``<home>/raw/<owner>/<name>/<YYYY-MM-DD>/`` holding one JSON-lines file
per payload kind and ``manifest.json``. A day is written whole or not at all:
it is assembled in a temporary folder and swapped into place by rename.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from pathlib import Path

from vllm_digest.model import MANIFEST, PAYLOAD_KINDS, DayPayload, Manifest
from vllm_digest.settings import RepoRef


def repo_dir(raw_root: Path, repo: RepoRef) -> Path:
    """The folder holding every landed day of ``repo``."""
    return raw_root / repo.owner / repo.name


def day_dir(raw_root: Path, repo: RepoRef, day: str) -> Path:
    return repo_dir(raw_root, repo) / day


def write_day(raw_root: Path, repo: RepoRef, day: str, payload: DayPayload) -> Path:
    """Land a day atomically; the previous landing stays until the new one is whole."""
    final = day_dir(raw_root, repo, day)
    final.parent.mkdir(parents=True, exist_ok=True)
    tmp = final.parent / f".tmp-{day}-{uuid.uuid4().hex}"
    tmp.mkdir()
    try:
        for kind, rows in payload.payloads().items():
            with open(tmp / f"{kind}.jsonl", "w", encoding="utf-8") as fh:
                for row in rows:
                    fh.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
                    fh.write("\n")
        (tmp / MANIFEST).write_text(
            json.dumps(payload.manifest.to_json(), ensure_ascii=False, indent=2, sort_keys=True) + "\n",
            encoding="utf-8",
        )
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

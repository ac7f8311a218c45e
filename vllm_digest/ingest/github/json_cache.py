"""A small JSON file of entries kept between runs (the profile and PR-files caches of the github source):
loaded whole, changed in memory, written back atomically only when something changed."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar, TypeVar

from vllm_digest.core.files import atomic_write_text


C = TypeVar("C", bound="JsonCache")


@dataclass
class JsonCache:
    """key -> entry, read from and saved to ``path`` (None: in memory only)."""

    # what the file holds, for error messages: "people cache", "logins"
    WHAT: ClassVar[str] = "cache"
    KEYS: ClassVar[str] = "keys"

    path: Path | None = None
    entries: dict[str, dict] = field(default_factory=dict)
    changed: bool = False

    @classmethod
    def load(cls: type[C], path: Path) -> C:
        """The cache at ``path`` (empty if the file does not exist); a damaged file is an error naming it."""
        if not path.is_file():
            return cls(path)
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{cls.WHAT} {str(path)!r} is not valid JSON (line {exc.lineno}): {exc.msg}; "
                             "delete it to fetch its entries again") from None
        if not isinstance(entries, dict):
            raise ValueError(f"{cls.WHAT} {str(path)!r} holds {type(entries).__name__}, not an object of {cls.KEYS}")
        return cls(path, entries)

    def save(self) -> None:
        if self.path is not None and self.changed:
            atomic_write_text(self.path, json.dumps(self.entries, ensure_ascii=False, sort_keys=True, indent=0) + "\n")
            self.changed = False

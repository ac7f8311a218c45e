"""The ``<day>.json`` file the report stage writes beside each day's pages (window, counts, lists,
summary, hot items, topics, key changes): how it is written (``dump``) and how its readers check it.
The site lists the days from these files and delivery sends them, both without the warehouse. One
definition of what a valid file holds, so the writer and the two readers cannot drift apart. A file
that is not what the report writes is an ``error`` (the reader's own class) naming its path and the
bad value."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

from vllm_digest.core import files
from vllm_digest.core.config.settings import RepoRef
from vllm_digest.core.vocabulary import SET_NAMES


class DayFileError(ValueError):
    """A ``<day>.json`` about to be written is not one its readers would accept (a fault of the writer)."""


def dump(doc: dict) -> str:
    """The file's text: ``doc`` as indented UTF-8 JSON, checked first as the readers check it (window,
    counts, headlines), so the report never writes a file the site or delivery would refuse."""
    where = f"<day>.json of {doc.get('repo')} {doc.get('day')}"
    for key in ("start", "end"):
        window_moment(where, doc, key, DayFileError)
    counts(where, doc, DayFileError)
    headlines(where, doc, DayFileError)
    text = json.dumps(doc, ensure_ascii=False, indent=2)
    # titles travel in it: escaped like this, the file stays inert even when pasted into HTML
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"


# the files of one day the report writes together: <day>.json and <day>.<lang>.md / .html
_DAY_GROUP_FILE = re.compile(r"^(?P<day>\d{4}-\d{2}-\d{2})\.(?:json|[A-Za-z0-9_-]+\.(?:md|html))$")


def day_of_file(name: str) -> str | None:
    """The day whose file group ``name`` belongs to (the report writes them together), or None."""
    found = _DAY_GROUP_FILE.match(name)
    return found["day"] if found else None


def stale(path: Path) -> bool:
    """Whether the day of ``<day>.json`` at ``path`` is stale: the last write of its files stopped while it
    replaced them, so some may be new and others old (core/files.py: write_together)."""
    return files.replacement_interrupted(files.marker_path(path.parent, path.name.removesuffix(".json")))


def fail(error: type[ValueError], path: Path | str, what: str, value) -> ValueError:
    return error(f"{path}: {what} (found {value!r:.200})")


def load(path: Path, day: str, repo: RepoRef, error: type[ValueError], stale_ok: bool = False) -> dict:
    """The file's object, checked against the day and repository it must be of, and, unless ``stale_ok``
    (the reader says so itself), that the day is not stale.
    A missing file raises FileNotFoundError, for the reader to say what it means."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise error(f"{path}: not a readable JSON day summary: {exc}") from None
    if not isinstance(doc, dict):
        raise fail(error, path, "not a JSON object", type(doc).__name__)
    if doc.get("day") != day:
        raise fail(error, path, f"day is not {day}", doc.get("day"))
    if doc.get("repo") != repo.full_name:
        raise fail(error, path, f"repo is not {repo.full_name}", doc.get("repo"))
    if not stale_ok and stale(path):
        raise error(f"{path}: the files of {day} are stale: the write that replaced them stopped midway "
                    f"({files.marker_path(path.parent, day).name} is left beside them), so some may be new and "
                    f"others old; materialize its daily_report again")
    return doc


def window_moment(path: Path | str, doc: dict, key: str, error: type[ValueError]) -> dt.datetime:
    """``window.start`` or ``window.end``: an ISO 8601 time with its UTC offset."""
    value = (doc.get("window") or {}).get(key)
    try:
        moment = dt.datetime.fromisoformat(value)
    except (TypeError, ValueError):
        raise fail(error, path, f"window.{key} is not an ISO 8601 time", value) from None
    if moment.tzinfo is None:
        raise fail(error, path, f"window.{key} has no UTC offset", value)
    return moment


def counts(path: Path | str, doc: dict, error: type[ValueError]) -> dict[str, int]:
    """The five counts, each a non-negative integer."""
    found = doc.get("counts")
    if not isinstance(found, dict):
        raise fail(error, path, "counts is not an object", found)
    for name in SET_NAMES:
        value = found.get(name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(error, path, f"counts.{name} is not a count", value)
    return {name: found[name] for name in SET_NAMES}


def complete(doc: dict) -> bool:
    return bool((doc.get("fetch") or {}).get("complete", True))


def failed_checks(doc: dict) -> tuple[str, ...]:
    """The warehouse checks the day failed when its report was rendered (none in a file written before
    the report recorded them)."""
    found = (doc.get("fetch") or {}).get("failed_checks") or []
    return tuple(str(name) for name in found) if isinstance(found, list) else ()


def headlines(path: Path | str, doc: dict, error: type[ValueError]) -> dict[str, str]:
    """``headline``: language -> the day's top story in one line, as the report wrote it (untrusted text: each
    reader makes it safe for its output). A file written before the headline existed has none: {}."""
    found = doc.get("headline", {})
    if not isinstance(found, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in found.items()):
        raise fail(error, path, "headline is not an object of language -> text", found)
    return dict(found)

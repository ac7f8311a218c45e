"""The fields each payload kind must carry, checked on every page an endpoint returns.

The plan pages, keeps and counts by a few fields of each object (an event's ``created_at`` and its
issue's ``number``, a comment's ``created_at`` and ``issue_url``...). An object without one, or with
it of another type (a number as a string, a time as an epoch integer), would otherwise surface as a
bare ``TypeError`` far from the page, or be dropped and the day called incomplete for a wrong
reason. So each page is checked here first, and a bad one fails the request for good (the same
request gets the same body), naming the endpoint, the object and the field.

Only what the product reads is checked: required fields must be there with their type; the others
are checked only when present (a deleted account's ``"user": null`` is fine, an older GitHub
Enterprise server's search items without ``merged_at`` too). A replayed page (a 304 rebuilt from the
previous landing) holds the same fields, so it passes the same check.
"""

from __future__ import annotations

import json
from typing import Callable

from vllm_digest.ingest.github.rest import parse_time


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _time(value) -> bool:
    if not isinstance(value, str):
        return False
    try:
        moment = parse_time(value)
    except ValueError:
        return False
    # a time without its offset cannot be compared with the day's window
    return moment is not None and moment.tzinfo is not None


# a type: (its test, how an error names it); a "?" type also takes null
_TYPES: dict[str, tuple[Callable[[object], bool], str]] = {
    "int": (_whole, "a whole number"),
    "str": (lambda v: isinstance(v, str), "a string"),
    "bool": (lambda v: isinstance(v, bool), "true or false"),
    "time": (_time, "a time with its offset such as 2026-03-22T03:39:00Z"),
    "object": (lambda v: isinstance(v, dict), "a JSON object"),
    "list": (lambda v: isinstance(v, list), "a JSON list"),
}

# kind -> (required fields, fields checked when present); a dotted name is a field of a nested object
_FIELDS: dict[str, tuple[dict[str, str], dict[str, str]]] = {
    "events": ({"id": "int", "event": "str", "created_at": "time", "issue": "object", "issue.number": "int"},
               {"issue.title": "str", "issue.pull_request": "object"}),
    "issues": ({"number": "int", "created_at": "time", "updated_at": "time"},
               {"title": "str", "state": "str", "closed_at": "time?", "user": "object?", "labels": "list",
                "body": "str?", "pull_request": "object", "pull_request.merged_at": "time?"}),
    "comments": ({"id": "int", "created_at": "time", "issue_url": "str"},
                 {"updated_at": "time", "user": "object?", "body": "str?"}),
    "review_comments": ({"id": "int", "created_at": "time", "pull_request_url": "str"},
                        {"updated_at": "time", "user": "object?", "body": "str?"}),
    "reviews": ({"id": "int", "pull_request_url": "str"},
                {"submitted_at": "time?", "user": "object?", "state": "str", "body": "str?"}),
    "pulls": ({"number": "int"},
              {"additions": "int?", "deletions": "int?", "changed_files": "int?", "commits": "int?",
               "draft": "bool?", "merged_at": "time?", "updated_at": "time"}),
    "files": ({"filename": "str"}, {"status": "str", "additions": "int", "deletions": "int"}),
    "users": ({"login": "str"}, {"name": "str?", "company": "str?", "bio": "str?", "type": "str"}),
}
# kind -> what an error calls one of its objects, and the field that names it
_NAMED = {"events": ("event", "id"), "issues": ("issue", "number"), "comments": ("comment", "id"),
          "review_comments": ("review comment", "id"), "reviews": ("review", "id"), "pulls": ("pull", "number"),
          "files": ("file", "filename"), "users": ("user", "login")}
_SHOWN_CHARS = 60


def shown(value) -> str:
    """A value as an error quotes it: as JSON, escaped to one line of ASCII, at most ``_SHOWN_CHARS`` characters."""
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= _SHOWN_CHARS else text[:_SHOWN_CHARS] + "..."


def _lookup(obj: dict, name: str) -> tuple[bool, object]:
    """(present, value) of a plain or dotted field; a dotted field under a missing or null parent is absent."""
    *parents, last = name.split(".")
    for parent in parents:
        obj = obj.get(parent)
        if not isinstance(obj, dict):
            return False, None
    return last in obj, obj.get(last)


def _type_name(value) -> str:
    return "null" if value is None else {bool: "a boolean", int: "a number", float: "a number", str: "a string",
                                         list: "a list", dict: "an object"}.get(type(value), type(value).__name__)


def field_problem(kind: str, obj: dict) -> str | None:
    """What is wrong with one object of ``kind``: its first missing or mistyped field, else None."""
    required, optional = _FIELDS[kind]
    for name, wanted in (*required.items(), *optional.items()):
        present, value = _lookup(obj, name)
        if not present:
            if name in required:
                return f"field {name!r} is missing"
            continue
        nullable = wanted.endswith("?")
        test, says = _TYPES[wanted.rstrip("?")]
        if value is None and nullable:
            continue
        if not test(value):
            return f"field {name!r} is {shown(value)} ({_type_name(value)}), not {says}{' or null' if nullable else ''}"
    return None


def check_object(kind: str, obj: dict) -> str | None:
    """What is wrong with the one object a body is (``GET /pulls/{n}``, ``/users/{login}``), or None."""
    problem = field_problem(kind, obj)
    return None if problem is None else f"the {_NAMED[kind][0]}: {problem}"


def check_objects(kind: str, objects: list, where: str = "") -> str | None:
    """The first bad object of a page as one sentence (which object, which field, what it holds), or None.
    ``where`` places the objects in the body (``items`` of a search result)."""
    for index, obj in enumerate(objects, 1):
        if not isinstance(obj, dict):
            return f"{where}object {index} of {len(objects)} is {_type_name(obj)}, not a JSON object"
        problem = field_problem(kind, obj)
        if problem is not None:
            noun, key = _NAMED[kind]
            named = f" ({key} {shown(obj[key])})" if key in obj and not problem.startswith(f"field {key!r}") else ""
            return f"{where}{noun} {index} of {len(objects)}{named}: {problem}"
    return None

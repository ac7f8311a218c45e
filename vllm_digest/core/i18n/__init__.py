"""Message catalogs: every user-facing string of one language in one TOML file (``<lang>.toml``).

The bundled catalogs live beside this file; a deployment may add languages, or replace a bundled one,
with a folder of its own (``Settings.catalog_dir``). Every catalog must hold exactly the keys of the
bundled ones, with the same ``{placeholders}``: a missing, unknown or differently filled key stops the
load with the file and the key named, so a gap cannot surface as a half-translated report.

Python formats a message with ``catalog("section.focus", focus=...)``; templates read the same
messages as ``t.section.summary`` (a read-only tree of the file).
"""

from __future__ import annotations

import functools
import re
import string
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from vllm_digest.core.taxonomy.loader import NAME_FIELDS


BUNDLED = Path(str(resources.files("vllm_digest.core.i18n")))
# matched against the whole name (fullmatch): ``$`` also matches before a final newline
_LANGUAGE = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*")
# keys whose value is a choice the code acts on, not text
CHOICES = {"language.names": NAME_FIELDS, "prompt.writing": ("cjk", "latin")}


class CatalogError(ValueError):
    """A catalog is missing, malformed or out of step with the bundled ones; the message names file and key."""


def _flatten(tree: dict, prefix: str, path: Path) -> dict[str, str | tuple[str, ...]]:
    out: dict[str, str | tuple[str, ...]] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flatten(value, f"{name}.", path))
        elif isinstance(value, str):
            out[name] = value
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            out[name] = tuple(value)
        else:
            raise CatalogError(f"catalog {str(path)!r}: key {name!r} must be a string or a list of strings, got {value!r}")
    return out


def placeholders(text: str, where: str) -> frozenset[str]:
    """The ``{names}`` a message is filled with."""
    try:
        return frozenset(name for _, name, _, _ in string.Formatter().parse(text) if name is not None)
    except ValueError as exc:
        raise CatalogError(f"{where}: not a valid message ({exc}): {text!r}") from None


def _read(path: Path) -> dict[str, str | tuple[str, ...]]:
    try:
        tree = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogError(f"catalog {str(path)!r}: cannot be read: {exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise CatalogError(f"catalog {str(path)!r}: not valid TOML: {exc}") from None
    return _flatten(tree, "", path)


def _line(path: Path, key: str) -> str:
    """`` line N`` where ``key`` is set in ``path`` (its table header, then the key), or ""."""
    *tables, last = key.split(".")
    table = ".".join(tables)
    current = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        header = re.match(r"^\s*\[([^\[\]]+)\]\s*(?:#.*)?$", line)
        if header:
            current = header.group(1).strip()
        elif current == table and re.match(rf"^\s*{re.escape(last)}\s*=", line):
            return f" line {number}"
    return ""


@functools.lru_cache(maxsize=1)
def reference() -> dict[str, frozenset[str] | None]:
    """Every key the bundled catalogs hold -> its placeholders (``None`` for a list); the bundled
    catalogs must agree with each other."""
    ref: dict[str, frozenset[str] | None] = {}
    seen: dict[str, Path] = {}
    for path in sorted(BUNDLED.glob("*.toml")):
        for key, value in _read(path).items():
            found = None if isinstance(value, tuple) else placeholders(value, f"catalog {str(path)!r}: key {key!r}")
            if key in ref and ref[key] != found:
                raise CatalogError(
                    f"catalog {str(path)!r}: key {key!r} is filled with {sorted(found or [])} "
                    f"but {str(seen[key])!r} fills it with {sorted(ref[key] or [])}"
                )
            ref.setdefault(key, found)
            seen.setdefault(key, path)
    return ref


class Messages:
    """One level of a catalog for templates: ``t.section.summary`` or ``t.appendix[set_name].heading``
    (attribute access that no key can shadow, unlike a dict's ``items``)."""

    def __init__(self, flat: dict, prefix: str = ""):
        self._prefix = prefix
        self._children: dict = {}
        for key, value in flat.items():
            head, _, rest = key.partition(".")
            if rest:
                self._children.setdefault(head, {})[rest] = value
            else:
                self._children[head] = value
        for head, value in self._children.items():
            if isinstance(value, dict):
                self._children[head] = Messages(value, f"{prefix}{head}.")

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._children[name]
        except KeyError:
            raise AttributeError(f"no message {self._prefix}{name!r}") from None

    __getitem__ = __getattr__


@dataclass(frozen=True)
class Catalog:
    language: str
    path: Path
    messages: dict[str, str | tuple[str, ...]] = field(repr=False)

    def __call__(self, key: str, **values) -> str:
        """The message ``key`` filled with ``values``."""
        text = self.messages[key]
        if isinstance(text, tuple):
            raise TypeError(f"message {key!r} of {str(self.path)!r} is a list; use .list()")
        return text.format(**values)

    def get(self, key: str, default: str) -> str:
        """The message ``key`` (unfilled), or ``default`` when the catalog has no such key."""
        value = self.messages.get(key, default)
        return value if isinstance(value, str) else default

    def list(self, key: str) -> tuple[str, ...]:
        value = self.messages[key]
        return value if isinstance(value, tuple) else (value,)

    @functools.cached_property
    def tree(self) -> Messages:
        return Messages(self.messages)


def catalog_path(language: str, extra_dir: Path | None = None) -> Path:
    """Where ``language``'s catalog is: the deployment's folder first, then the bundled ones."""
    if not _LANGUAGE.fullmatch(language):
        raise CatalogError(f"language {language!r} is not a language code such as zh, en or pt-BR")
    for folder in (extra_dir, BUNDLED):
        if folder is not None and (folder / f"{language}.toml").is_file():
            return folder / f"{language}.toml"
    looked = " nor ".join(repr(str(f)) for f in (extra_dir, BUNDLED) if f is not None)
    raise CatalogError(f"language {language!r} has no catalog {language}.toml in {looked}")


def available_languages(extra_dir: Path | None = None) -> tuple[str, ...]:
    folders = [f for f in (extra_dir, BUNDLED) if f is not None and f.is_dir()]
    return tuple(sorted({p.stem for f in folders for p in f.glob("*.toml") if _LANGUAGE.fullmatch(p.stem)}))


def load_catalog(language: str, extra_dir: Path | None = None) -> Catalog:
    """``language``'s catalog, checked against the bundled keys; read once per file version."""
    path = catalog_path(language, extra_dir)
    stat = path.stat()
    return _load(language, path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _load(language: str, path: Path, _mtime_ns: int, _size: int) -> Catalog:
    messages = _read(path)
    ref = reference()
    where = f"catalog {str(path)!r}"

    def at(key: str) -> str:
        return f"{where}{_line(path, key)}: key {key!r}"

    missing = sorted(set(ref) - set(messages))
    if missing:
        raise CatalogError(f"{where}: missing key(s) {missing}")
    unknown = sorted(set(messages) - set(ref))
    if unknown:
        raise CatalogError(f"{at(unknown[0])} is unknown (unknown: {unknown}); a catalog holds the keys of the bundled ones")
    for key, value in messages.items():
        if (ref[key] is None) != isinstance(value, tuple):
            kind = "a list of strings" if ref[key] is None else "a string"
            raise CatalogError(f"{at(key)} must be {kind}")
        if key in CHOICES and value not in CHOICES[key]:
            raise CatalogError(f"{at(key)} must be one of {list(CHOICES[key])}, not {value!r}")
        if ref[key] is not None and placeholders(value, at(key)) != ref[key]:
            raise CatalogError(
                f"{at(key)} must be filled with {sorted(ref[key])}, not {sorted(placeholders(value, at(key)))}: {value!r}"
            )
    return Catalog(language, path, messages)

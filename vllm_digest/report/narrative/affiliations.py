"""Employers in an LLM-written text: a claim of whom a person works for passes only when the facts pack gives it.

Readers punish "<vendor> employee" read off a login: a model sees a login that ends in a vendor's name or a vendor's
product in a title and makes its author an employee. So a text may say that a person, or an item's author, works
for an employer only if the pack says so for an item or person of the same line (or, for a line that names none,
for someone in the pack: "three items by <vendor> employees"). The pack says it with an item's ``employer``,
``author_employer`` or ``company``, or with ``is_vendor_employee`` true and the pack's ``vendor``.

What counts as such a claim is read with the language's words (``[prompt.affiliation]`` of its catalog): a name
before a role ("<name> employee", "<name>'s engineer", "<name> 的工程师"), after a link ("works at <name>",
"就职于 <name>"), next to "from" and a person ("a contributor from <name>", "来自 <name> 的开发者"), or with a
suffix ("<name>-affiliated").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vllm_digest.core.i18n import Catalog
from vllm_digest.report.narrative.states import pack_objects

_REF = re.compile(r"#(\d+)(?!\d)")
_TOP_ENTRY = re.compile(r"^(?:10|[1-9])[.)]\s", re.M)
# a Latin name: a capitalised or camel-cased word, and a second capitalised one ("Red Hat"); Latin letters only,
# so a CJK word written against it ("名称员工") is not swallowed
_LATIN_NAME = r"(?:[A-Z][A-Za-z0-9&.\-]*|[a-z]+[A-Z][A-Za-z0-9&.\-]*)(?:[ \t]+[A-Z][A-Za-z0-9&.\-]*)?"
_CJK_NAME = r"[\u4e00-\u9fff]{2,8}?"
_EMPLOYER_KEYS = ("employer", "author_employer", "company")
_PERSON_KEYS = ("author", "login", "name")


@dataclass(frozen=True)
class Affiliation:
    employer: str  # as the text wrote it
    phrase: str  # the whole claim
    start: int


def _words(phrases, latin: bool) -> str:
    ordered = sorted({p for p in phrases if p}, key=len, reverse=True)
    if not ordered:
        return r"(?!x)x"
    body = "|".join(r"\s+".join(re.escape(w) for w in p.split()) for p in ordered)
    return rf"(?:{body})(?![A-Za-z])" if latin else f"(?:{body})"


def _patterns(catalog: Catalog, people: list[str]) -> list[re.Pattern]:
    latin = catalog("prompt.writing") == "latin"

    def words(key: str) -> str:
        return _words(catalog.list(f"prompt.affiliation.{key}"), latin)

    suffix = catalog.list("prompt.affiliation.org_suffix")
    name = _LATIN_NAME
    if suffix:
        # a name of the script's own letters is a name only with its suffix ("某某公司")
        name = rf"(?:{_LATIN_NAME}|{_CJK_NAME}(?={_words(suffix, latin)}))"
    org = rf"(?P<org>{name})"
    tail = rf"(?:\s*{words('org_suffix')})?(?:\s*{words('possessive')})?"
    before = r"(?<![A-Za-z0-9])" if latin else ""
    # a person the data names (in backticks or not) may stand before "from", like the catalog's person words
    persons = _words([*catalog.list("prompt.affiliation.people"), *people], latin)
    # after a link the name is open-ended in either script ("works at <name>", "就职于<name>")
    linked = org if latin else rf"(?P<org>{_LATIN_NAME}|[\u4e00-\u9fff]{{2,8}})"
    out = [
        rf"{before}{org}{tail}[\s-]*{words('roles')}",
        rf"{words('links')}\s*{linked}",
        # an item stands for its author too ("#12 from <name>")
        rf"(?:{persons}|`[^`\n]+`|\)|#\d+)\s*{words('from')}\s*{org}",
        rf"{words('from')}\s*{org}{tail}\s*{persons}",
    ]
    if catalog.list("prompt.affiliation.claim_suffix"):
        out.append(rf"{before}{org}{words('claim_suffix')}")
    return [re.compile(p) for p in out]


def _clean_name(found: str, catalog: Catalog) -> str:
    """The employer a claim names, without the capitalised words that are never one ("The", "Senior")."""
    never = {w.lower() for w in catalog.list("prompt.affiliation.not_employers")}
    kept = [w for w in found.strip(" .-").split() if w.lower() not in never]
    return " ".join(kept)


def affiliation_claims(text: str, catalog: Catalog, people: list[str] = ()) -> list[Affiliation]:
    out: dict[int, Affiliation] = {}
    for pattern in _patterns(catalog, list(people)):
        for match in pattern.finditer(text):
            employer = _clean_name(match.group("org"), catalog)
            if employer and match.start("org") not in out:
                out[match.start("org")] = Affiliation(employer, match.group(0).strip(), match.start())
    return [out[k] for k in sorted(out)]


def _key(name: str) -> tuple[set[str], str]:
    """A name's Latin words, lower-cased, without punctuation ("@Acme" and "acme" are one; "Red Hat, Inc." holds
    "red hat"), and its CJK characters, which have no word boundaries to split on."""
    return set(re.findall(r"[a-z0-9]+", name.lower())), "".join(re.findall(r"[\u4e00-\u9fff]+", name))


def _same(claimed: str, given: str) -> bool:
    (a, cjk_a), (b, cjk_b) = _key(claimed), _key(given)
    if a and b and (a <= b or b <= a):
        return True
    # a CJK name is found inside the words around it ("由某某" holds "某某")
    return bool(cjk_a) and bool(cjk_b) and (cjk_a in cjk_b or cjk_b in cjk_a)


@dataclass
class _Given:
    by_item: dict[int, set[str]]
    by_person: dict[str, set[str]]

    def everyone(self) -> set[str]:
        return {e for found in (*self.by_item.values(), *self.by_person.values()) for e in found}


def employers_given(facts) -> _Given:
    """What the pack says of employers: item number -> its author's employers, person (lower-cased) -> theirs."""
    vendor = facts.get("vendor") if isinstance(facts, dict) else None
    given = _Given({}, {})
    for node in pack_objects(facts):
        employers = {node[k] for k in _EMPLOYER_KEYS if isinstance(node.get(k), str) and node[k].strip()}
        if node.get("is_vendor_employee") is True and isinstance(vendor, str) and vendor:
            employers.add(vendor)
        if not employers:
            continue
        if isinstance(node.get("number"), int):
            given.by_item.setdefault(node["number"], set()).update(employers)
        for key in _PERSON_KEYS:
            if isinstance(node.get(key), str) and node[key].strip():
                given.by_person.setdefault(node[key].strip().lower(), set()).update(employers)
    return given


def pack_people(facts) -> list[str]:
    """Every person the pack names (item authors, commenters, reviewers)."""
    out: set[str] = set()
    for node in pack_objects(facts):
        out.update(node[key].strip() for key in _PERSON_KEYS if isinstance(node.get(key), str) and node[key].strip())
        for key in ("maintainers", "approved_by", "changes_requested_by"):
            out.update(v for v in node.get(key) or [] if isinstance(v, str) and v.strip())
    return sorted(out)


def _scope(text: str, at: int) -> str:
    """Whom a claim at ``at`` is about: its line, or when the line names no item, its top-level entry."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    line = text[start:end if end >= 0 else len(text)]
    if _REF.search(line):
        return line
    entries = [m.start() for m in _TOP_ENTRY.finditer(text) if m.start() <= at]
    if not entries:
        return line
    nxt = _TOP_ENTRY.search(text, entries[-1] + 1)
    return text[entries[-1]:nxt.start() if nxt else len(text)]


def _named_in(scope: str, person: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(person)}(?![\w-])", scope, re.I) is not None


def affiliation_violations(text: str, facts: dict, catalog: Catalog) -> list[str]:
    """Every claim of an employer that the pack does not give for the items and people it is about."""
    given = employers_given(facts)
    people = pack_people(facts)
    out: list[str] = []
    for claim in affiliation_claims(text, catalog, people):
        scope = _scope(text, claim.start)
        numbers = {int(n) for n in _REF.findall(scope)}
        named = [p for p in people if _named_in(scope, p)]
        if numbers or named:
            allowed = {e for n in numbers for e in given.by_item.get(n, ())}
            allowed |= {e for p in named for e in given.by_person.get(p.lower(), ())}
        else:
            allowed = given.everyone()
        if not any(_same(claim.employer, e) for e in allowed):
            about = ", ".join([*(f"#{n}" for n in sorted(numbers)), *named]) or "anyone in the data"
            out.append(f"affiliation {claim.phrase!r} is not in the data: it gives no employer {claim.employer!r} "
                       f"for {about}; say whom someone works for only where the data says so")
    return list(dict.fromkeys(out))

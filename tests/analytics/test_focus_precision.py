"""Focus precision (issue 17): an item whose AMD/ROCm evidence is weak (a label, the body or the author's
login, no area word in its title) and that is not new in the window (merged or closed today, opened
earlier) is kept off the 🎯 list and counted in its one-line tail; the same item opened today, or one whose
title names the area even inside an identifier, stays listed."""

from __future__ import annotations

import duckdb

from vllm_digest.testing.pipeline import materialize, report_path, write_sample

DAY = "2026-03-22"


def _item(number: int, title: str, *, pr: bool, created: str, closed: bool, label: str | None = "rocm",
          login: str | None = None) -> dict:
    at = f"{DAY}T07:00:00Z"
    return {
        "number": number, "title": title, "user": {"login": login or f"dev{number}", "type": "User"},
        "labels": [{"name": label}] if label else [], "state": "closed" if closed else "open",
        "created_at": created, "updated_at": at, "closed_at": at if closed else None, "comments": 0,
        "pull_request": {"merged_at": at if closed else None} if pr else None, "body": "",
    }


EARLIER = "2026-03-10T05:00:00Z"  # opened twelve days before the window
TODAY = f"{DAY}T05:00:00Z"
ITEMS = [
    # weak evidence, not new: kept off the list
    _item(901, "[Frontend] Improve pooling entrypoints", pr=True, created=EARLIER, closed=True),
    _item(902, "[Bug]: tool calling returns empty arguments", pr=False, created=EARLIER, closed=True),
    _item(903, "Fix import order", pr=True, created=EARLIER, closed=True, label=None, login="dev-amd"),
    # the area's keywords inside ordinary words are no naming ("amd" in "command", "hip" in "chip")
    _item(907, "Fix command line parsing in chip detection", pr=True, created=EARLIER, closed=True),
    # listed: the title names the area inside an identifier, or the item is new today, or the title says ROCm
    _item(904, "[Bug]: ops unable to pattern match for `ROCmAiterTritonRope`", pr=False, created=EARLIER,
          closed=True),
    _item(905, "scaffold logic for conditionally imported deps", pr=True, created=TODAY, closed=False),
    _item(906, "[ROCm] Fix attention metadata", pr=True, created=EARLIER, closed=True),
    _item(908, "[CI Failure]: mi325_1: Entrypoints Integration Test", pr=False, created=EARLIER, closed=True),
    _item(909, "Add the option to turn on hipBLASLt online tuning", pr=True, created=EARLIER, closed=True),
]


# a close (and a merge, for a PR) today: what puts an item opened earlier in the day's closed or merged list
EVENTS = [{"id": 1000 * i["number"] + k, "node_id": f"E_{i['number']}_{kind}", "event": kind,
           "created_at": i["closed_at"], "actor": None, "commit_id": None, "issue": {"number": i["number"]}}
          for i in ITEMS if i["closed_at"]
          for k, kind in enumerate(("closed", "merged") if i["pull_request"] else ("closed",))]


def test_a_weak_evidence_update_is_kept_off_the_focus_list(make_settings, tmp_path):
    settings = make_settings(VLLM_DIGEST_SAMPLE_DIR=str(write_sample(tmp_path / "sample", ITEMS, EVENTS)))
    materialize(settings, DAY)
    with duckdb.connect(str(settings.warehouse_path), read_only=True) as con:
        demoted = dict(con.execute("SELECT number, demoted FROM mart_focus_items WHERE day = $d",
                                   {"d": DAY}).fetchall())
    assert demoted == {901: "off_title", 902: "off_title", 903: "off_title", 907: "off_title",
                       904: None, 905: None, 906: None, 908: None, 909: None}
    # the reason holds no list separator (", " / "、"), so the tail reads as one entry per reason
    tails = {"en": "4 not opened today and not named in the title (only a label/body/login)",
             "zh": "4 项非今日新建且标题未提及该领域（仅凭标签/正文/作者名）"}
    for lang in ("zh", "en"):
        md = report_path(settings, DAY, f"{lang}.md").read_text(encoding="utf-8")
        focus = md.split("\n### 🎯", 1)[1].split("\n### ", 1)[0]
        listed = {n for n in range(901, 910) if f"/{n})" in focus}
        assert listed == {904, 905, 906, 908, 909}, lang
        assert tails[lang] in focus, focus

"""Build the one dict a day's report is rendered from, out of the marts only.

Templates compute nothing: every label, link and sentence fragment they print
is prepared here, in a stable order, so the same tables give the same bytes.
"""

from __future__ import annotations

import datetime as dt
import json

import duckdb

from vllm_digest.partitions import DayWindow, utc_offset_label
from vllm_digest.report import insights
from vllm_digest.report.charts import build_charts
from vllm_digest.report.facts import attach_facts
from vllm_digest.report.markdown_safe import md_inline, plain_inline
from vllm_digest.report.sections import author_name, build_sections
from vllm_digest.settings import RepoRef, Settings
from vllm_digest.model import SET_NAMES



class ReportDataMissing(LookupError):
    """The marts hold no rows for the day asked for."""


def local_label(moment: dt.datetime, settings: Settings) -> str:
    local = moment.astimezone(settings.tz)
    return f"{local:%Y-%m-%d %H:%M} ({utc_offset_label(local)})"


def item_url(settings: Settings, repo: RepoRef, kind: str, number: int) -> str:
    """Built from our own config, never from payload text."""
    path = "pull" if kind == "pr" else "issues"
    return f"{settings.github_web_url}/{repo.full_name}/{path}/{int(number)}"


def _item(row: dict, settings: Settings, repo: RepoRef) -> dict:
    labels = list(row["labels"] or [])
    return {
        "number": row["number"],
        "kind": row["kind"],
        "url": item_url(settings, repo, row["kind"], row["number"]),
        "title_md": md_inline(row["title"]),
        "title": plain_inline(row["title"]),
        "labels": [plain_inline(x, 80) for x in labels],
        "labels_md": ",".join(md_inline(x, 80) for x in labels),
        "author_md": md_inline(author_name(row["author_login"]), 80),
        "author": author_name(row["author_login"]),
        "time_label": local_label(row["occurred_at"], settings),
        "occurred_at": row["occurred_at"].astimezone(dt.timezone.utc).isoformat(),
    }


def build_context(
    con: duckdb.DuckDBPyConnection, settings: Settings, repo: RepoRef, window: DayWindow,
    batch: insights.DayBatch | None = None,
) -> dict:
    found = (batch or insights.DayBatch(con, repo.full_name, [window.key])).day(window.key)
    if not found["daily_counts"]:
        raise ReportDataMissing(
            f"no mart_daily_counts row for {repo.full_name} {window.key}: "
            "materialize the warehouse assets for that day first"
        )
    counts = {k: int(found["daily_counts"][0][k]) for k in SET_NAMES}
    manifest = found["manifest"][0]
    members = found["members"]
    lists: dict[str, list[dict]] = {name: [] for name in SET_NAMES}
    for row in members:
        lists[row["set_name"]].append(_item(row, settings, repo))
    return {
        "repo": repo.full_name,
        "display_name": settings.display_name(repo),
        "day": window.key,
        "window": {
            "start": window.start.astimezone(settings.tz).isoformat(),
            "end": window.end.astimezone(settings.tz).isoformat(),
            "start_label": local_label(window.start, settings),
            "end_label": local_label(window.end, settings),
            "timezone": settings.timezone,
        },
        "counts": counts,
        "fetch": {
            "source": manifest["source"],
            "semantics": manifest["semantics"],
            "complete": bool(manifest["complete"]),
            "incomplete_reasons": [plain_inline(r) for r in manifest["incomplete_reasons"] or []],
        },
        "lists": lists,
    }


def build_report_context(
    con: duckdb.DuckDBPyConnection, settings: Settings, repo: RepoRef, window: DayWindow,
    batch: insights.DayBatch | None = None,
) -> dict:
    """The base context plus the seven sections, read while the connection is open; a range run
    passes one ``insights.DayBatch`` of all its days so each query runs once, not once a day."""
    batch = batch or insights.DayBatch(con, repo.full_name, [window.key])
    ctx = build_context(con, settings, repo, window, batch)
    data = insights.gather(con, repo.full_name, window.key, ctx["counts"], batch)
    ctx["sections"] = build_sections(ctx, data, lambda kind, n: item_url(settings, repo, kind, n))
    attach_facts(ctx["sections"], ctx, data, settings.languages)
    ctx["charts"] = build_charts(ctx, data, lambda kind, n: item_url(settings, repo, kind, n))
    return ctx


def summary_json(context: dict) -> str:
    """``<day>.json``: the window, the five counts and the five lists' numbers, plus the
    summary paragraph and the hottest items that the site's feed shows, and the topics and key
    changes that delivery's messages show."""
    sections = context.get("sections", {})
    hot = sections.get("discussions", {}).get("doc_en", {}).get("groups", [])
    changes = sections.get("key_changes", {}).get("doc_en", {}).get("groups", [])
    doc = {
        "repo": context["repo"],
        "day": context["day"],
        "window": {k: context["window"][k] for k in ("start", "end", "timezone")},
        "counts": context["counts"],
        "lists": {k: [i["number"] for i in v] for k, v in context["lists"].items()},
        "fetch": context["fetch"],
        "summary": {k.removeprefix("doc_"): v["lead"] for k, v in sections.get("summary", {}).items() if k.startswith("doc_")},
        "hot": [{"number": e["number"], "kind": e["kind"], "title": e["title"]} for g in hot for e in g["entries"]],
        # what delivery's chat messages show: the day's topics (as the topics chart holds them) and key changes
        "topics": [{"name": r["label"], "count": int(r["value"])} for r in context.get("charts", {}).get("topics", {}).get("rows", [])],
        "key_changes": [{"number": e["number"], "kind": e["kind"], "title": e["title"]} for g in changes for e in g["entries"]],
    }
    text = json.dumps(doc, ensure_ascii=False, indent=2)
    # titles travel in it: escaped like this, the file stays inert even when pasted into HTML
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") + "\n"

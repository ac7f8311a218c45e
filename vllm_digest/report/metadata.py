"""What the UI shows on a daily report's or weekly digest's materialization.

Dagster copies a range run's metadata onto every partition's materialization, so whatever names one
day (the preview, the HTML pages) says which day it is (``preview_day``): it is the LAST day the run
wrote, the one a user usually wants to look at. One day's Markdown per language, never every day's:
a 22-day range would otherwise store 22 x 2 pages on each of its 22 materializations.
"""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from vllm_digest.core.calendar import PER_DAY_METADATA_MAX_DAYS
from vllm_digest.core.config.settings import RepoRef, Settings
from vllm_digest.core.vocabulary import SET_NAMES
from vllm_digest.report.render import render_markdown, report_dir
from vllm_digest.report.weekly import render_week_markdown

COUNT_COLUMNS = [dg.TableColumn(name, "int") for name in SET_NAMES]


def counts_table(first_column: str, rows: list[tuple[str, dict, bool]]) -> dg.TableMetadataValue:
    """One row per day (or week): its five counts and whether its data is complete."""
    schema = dg.TableSchema(columns=[dg.TableColumn(first_column, "string"), *COUNT_COLUMNS,
                                     dg.TableColumn("complete", "bool")])
    records = [dg.TableRecord({first_column: key, **{n: int(counts.get(n, 0)) for n in SET_NAMES}, "complete": complete})
               for key, counts, complete in rows]
    return dg.MetadataValue.table(records, schema=schema)


def page_metadata(key: str, written: dict[str, Path], previews: dict[str, str]) -> dict:
    """The last day's (or week's) Markdown preview and HTML page per language."""
    out: dict = {"preview_day": key}
    for lang, text in previews.items():
        out[f"preview_{lang}"] = dg.MetadataValue.md(text)
        if f"{lang}.html" in written:
            out[f"html_{lang}"] = dg.MetadataValue.path(str(written[f"{lang}.html"]))
    return out


def report_metadata(settings: Settings, repo: RepoRef, reports: list, written: dict, last: tuple = ()) -> dict:
    """``reports``: each day's report in the first language; ``last``: the last day's report in every
    language (the previews); ``written``: the files written for that last day."""
    previews = {r.language: render_markdown(r) for r in last}
    pages = page_metadata(reports[-1].day, written, previews) if previews else {}
    if len(reports) == 1:
        day = reports[0]
        return {
            **{f"path_{name.replace('.', '_')}": dg.MetadataValue.path(str(p)) for name, p in written.items()},
            **day.counts,
            "complete": day.fetch.complete,
            # which table fed each section: a missing analytics mart shows up here, not as a crash
            **{f"source_{s.id}": s.source for s in day.sections},
            "focus_items": len(day.data.focus),
            **pages,
        }
    incomplete = [r.day for r in reports if not r.fetch.complete]
    metadata: dict = {
        "reports_dir": dg.MetadataValue.path(str(report_dir(settings, repo))),
        "complete": not incomplete,
        "incomplete_days": ", ".join(incomplete) or "none",
        # a long range lists its last month by day, and the whole range's totals
        "counts_by_day": counts_table("day", [(r.day, r.counts, r.fetch.complete)
                                              for r in reports[-PER_DAY_METADATA_MAX_DAYS:]]),
        **pages,
    }
    if len(reports) > PER_DAY_METADATA_MAX_DAYS:
        metadata["counts_total"] = dg.MetadataValue.json(
            {name: sum(r.counts[name] for r in reports) for name in reports[0].counts}
        )
    return metadata


def weekly_metadata(weeks: list[str], built: list[tuple], written: dict, folder: Path) -> dict:
    """The weekly digest's: the weeks, a table of their five counts, and the last week's previews and pages."""
    first = built[0][0]
    metadata: dict = {
        "weeks": ", ".join(weeks),
        "weekly_dir": dg.MetadataValue.path(str(folder)),
        "counts_by_week": counts_table("week", [(w[0].week, {c.key: c.this for c in w[0].counts}, w[0].complete)
                                                for w in built[-PER_DAY_METADATA_MAX_DAYS:]]),
        **page_metadata(built[-1][0].week, written, {w.language: render_week_markdown(w) for w in built[-1]}),
    }
    if len(built) == 1:
        metadata.update({"days_held": first.days_held, "featured": first.featured, "moved": first.moved,
                         **{c.key: c.this for c in first.counts}})
    return metadata

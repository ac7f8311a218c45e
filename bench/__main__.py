"""`make bench`: run every figure, print a markdown table, write bench/results.md.

Environment: BENCH_YEAR_REPEATS (default 3; each 365-day backfill takes 1.5 minutes),
BENCH_CLI_REPEATS (default 3; figure 2's thirty one-day processes take 3 minutes),
BENCH_REPEATS (default 3, the other figures), BENCH_ONLY (comma-separated figure
numbers; 6, figure 1 on PostgreSQL, needs the server binaries and takes ~10 minutes),
BENCH_WORKDIR (default /tmp/vllm-digest-bench).
"""

from __future__ import annotations

import datetime as dt
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

from bench import figures

HERE = Path(__file__).resolve().parent


def machine() -> dict[str, str]:
    cpu = "unknown"
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    ram = "unknown"
    if Path("/proc/meminfo").exists():
        kib = int(Path("/proc/meminfo").read_text().split("MemTotal:")[1].split()[0])
        ram = f"{kib / 1024 / 1024:.1f} GiB"
    return {
        "cores": str(os.cpu_count()),
        "ram": ram,
        "cpu": cpu,
        "python": platform.python_version(),
        "dagster": metadata.version("dagster"),
        "duckdb": metadata.version("duckdb"),
        "os": platform.platform(),
    }


def main() -> int:
    repeats = int(os.environ.get("BENCH_REPEATS", "3"))
    year_repeats = int(os.environ.get("BENCH_YEAR_REPEATS", "3"))
    cli_repeats = int(os.environ.get("BENCH_CLI_REPEATS", "3"))
    only = {s.strip() for s in os.environ.get("BENCH_ONLY", "1,2,3,4,5,6").split(",")}
    results = []
    year = None
    if "1" in only or "3" in only:
        year = figures.fig1_year_backfill(year_repeats)
        if "1" in only:
            results.append(year)
        print(f"fig 1 done: {year['value']}", file=sys.stderr)
    if "2" in only:
        results.append(figures.fig2_per_day_vs_single(repeats, cli_repeats=cli_repeats))
        print(f"fig 2 done: {results[-1]['value']}", file=sys.stderr)
    if "3" in only:
        results.append(figures.fig3_day365_vs_day1(Path(year["home"]), repeats))
        print(f"fig 3 done: {results[-1]['value']}", file=sys.stderr)
    if "4" in only:
        results.append(figures.fig4_requests())
        print(f"fig 4 done: {results[-1]['value']}", file=sys.stderr)
    if "5" in only:
        results.append(figures.fig5_scheduled_day_github(repeats))
        print(f"fig 5 done: {results[-1]['value']}", file=sys.stderr)
    if "6" in only:
        results.append(figures.fig6_postgres())
        print(f"fig 6 done: {results[-1]['value']}", file=sys.stderr)

    table = ["| figure | result | target | met |", "|---|---|---|---|"]
    met = {True: "yes", False: "no", None: "—"}
    table += [f"| {r['name']} | {r['value']} | {r['target']} | {met[r['ok']]} |" for r in results]
    print("\n".join(table))
    m = machine()
    lines = [
        "# Benchmark results",
        "",
        f"Run {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC with `make bench` (`python -m bench`).",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in m.items()),
        "",
        f"Each figure is the median of {repeats} runs, except (1), the 365-day backfill: "
        f"{year_repeats} run(s); (2)'s process series: {cli_repeats} run(s) of 30 + 1 processes; (6): one run. "
        f"Synthetic data: `bench/synthetic.py`, seed {figures.SEED}, at the embedded sample's measured "
        "daily volume. Runs materialize the whole graph (assets and asset checks) with the in-process "
        "executor; they use an ephemeral (in-memory) Dagster instance like `dg.materialize`, except "
        "(2)'s process series, which runs `dagster asset materialize` on the SQLite instance of "
        "`dagster.yaml`. Other work may share the machine, so a figure's parts "
        "are compared within one run; absolute seconds vary by ±20 % between runs.",
        "",
        *table,
        "",
        "## Raw numbers",
        "",
    ]
    for r in results:
        lines.append(f"- {r['name']}: `{r['detail']}`")
    notes = HERE / "profile_notes.md"
    if notes.is_file():
        lines += ["", notes.read_text(encoding="utf-8").rstrip()]
    (HERE / "results.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\nwrote {HERE / 'results.md'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""`make bench`: run every figure, print a markdown table, write tools/perf/results.md.

Environment (each also an option, which wins): BENCH_YEAR_REPEATS (default 3; each 365-day
backfill takes 1.5 minutes), BENCH_REPEATS (default 3, the other figures), BENCH_ONLY (comma-separated figure
numbers; 6, figure 1 on PostgreSQL, needs the server binaries and takes ~10 minutes),
BENCH_WORKDIR (default /tmp/vllm-digest-bench).

Figure 2 (365 one-day runs against one 365-day run) is retired (issue 31): both pay Dagster's cost per
(asset, day), so its ratio measured Dagster, not us; figure 1 compares the year with Dagster's floor instead.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
# figure -> why it is no longer run (its number is not reused)
RETIRED = {
    "2": "365 one-day runs against one 365-day run is retired (issue 31): both pay Dagster's cost per (asset, day), "
         "so the ratio measured Dagster, not us; figure 1 compares the year with Dagster's floor instead",
}
FIGURES = {
    "1": "365-day single-run backfill, whole graph (with and without checks, and Dagster's floor)",
    "3": "day 365 (a year in the warehouse) vs day 1 (empty warehouse)",
    "4": "GitHub requests per synthetic day against the emulator beside the REST lower bound; N days in one run",
    "5": "one scheduled day end to end, github source against the emulator",
    "6": "figure 1 on a local PostgreSQL instance (needs the server binaries, ~10 minutes)",
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    env = os.environ
    p = argparse.ArgumentParser(
        prog="python -m tools.perf",
        description="Run the benchmark figures, print a markdown table and write tools/perf/results.md.",
        epilog="figures:\n" + "\n".join(f"  {n}  {text}" for n, text in FIGURES.items())
        + "".join(f"\n  {n}  (retired) {why}" for n, why in RETIRED.items())
        + "\n\nThe whole set takes tens of minutes on two cores.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--only", default=env.get("BENCH_ONLY", ",".join(FIGURES)), metavar="N[,N...]",
                   help="figures to run, comma-separated (BENCH_ONLY; default: all)")
    p.add_argument("--repeats", type=int, default=int(env.get("BENCH_REPEATS", "3")),
                   help="runs per figure, the median is reported (BENCH_REPEATS; default 3)")
    p.add_argument("--year-repeats", type=int, default=int(env.get("BENCH_YEAR_REPEATS", "3")),
                   help="runs of the 365-day backfill, 1.5 minutes each (BENCH_YEAR_REPEATS; default 3)")
    p.add_argument("--workdir", default=env.get("BENCH_WORKDIR", "/tmp/vllm-digest-bench"),
                   help="where the synthetic data and homes go (BENCH_WORKDIR; default /tmp/vllm-digest-bench)")
    args = p.parse_args(argv)
    args.only = {s.strip() for s in args.only.split(",") if s.strip()}
    retired = sorted(args.only & set(RETIRED))
    if retired:
        p.error(f"--only {','.join(sorted(args.only))!r}: figure {retired[0]}: {RETIRED[retired[0]]}")
    unknown = sorted(args.only - set(FIGURES))
    if unknown or not args.only:
        p.error(f"--only {','.join(sorted(args.only))!r}: figures are {', '.join(FIGURES)}")
    return args


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


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    repeats, year_repeats, only = args.repeats, args.year_repeats, args.only
    # figures reads its work folder when imported, and imports the whole pipeline: only now, after --help
    os.environ["BENCH_WORKDIR"] = args.workdir
    from tools.perf import figures
    results = []
    year = None
    if "1" in only or "3" in only:
        year = figures.fig1_year_backfill(year_repeats)
        if "1" in only:
            results.append(year)
        print(f"fig 1 done: {year['value']}", file=sys.stderr)
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
        f"Run {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC with `make bench` (`python -m tools.perf`).",
        "",
        "Machine: " + ", ".join(f"{k} {v}" for k, v in m.items()),
        "",
        f"Each figure is the median of {repeats} runs, except (1), the 365-day backfill: "
        f"{year_repeats} run(s); (6): one run. "
        f"Synthetic data: `vllm_digest/testing/synthetic.py`, seed {figures.SEED}, at the embedded sample's measured "
        "daily volume. Runs materialize the whole graph (assets and asset checks) with the in-process "
        "executor; they use an ephemeral (in-memory) Dagster instance like `dg.materialize`, except (6), "
        "which uses a local PostgreSQL instance. (1)'s own work is its total minus Dagster's floor for the graph's shape "
        "(`tools/perf/floor.py`), both measured in the same run. Other work may share the machine, so a figure's parts "
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

"""What bench/run.py prints: the header line, the figures, the targets, the server comparison.

In order: one header line (date, machine, versions, wrk's settings, load average before
and after); a note when the machine was busy; the table of every scenario; the targets
against the bare app as a table (MET or MISS per target and configuration) and line by
line; the earlier targets against the same-stack baseline; with `--server both`,
uvicorn against granian side by side; what each server preserved (bench/checks.py).
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from datetime import datetime
from importlib import metadata

from bench import procstats
from bench.checks import server_checks
from bench.results import Report, median
from bench.rounds import BARE, Plan
from bench.serving import SERVER_KINDS
from bench.targets import (
    MAX_RSS_MB,
    earlier_targets,
    goal_cell,
    pct,
    target_for,
    target_table,
    targets,
    verdict,
)


@dataclass(frozen=True)
class Conditions:
    """When and how the run was made, for its header line."""

    started: datetime
    finished: datetime
    load_before: str
    load_after: str
    busy_before: float  # the one-minute load average before the run


def versions() -> str:
    names = ("fastapi", "starlette", "uvicorn", "uvloop", "httptools", "granian")
    found: list[str] = []
    for name in names:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            found.append(f"{name} absent")
    return ", ".join(found)


def header(plan: Plan, conditions: Conditions) -> str:
    return (
        f"Gatehouse benchmark, {conditions.started:%Y-%m-%d %H:%M} to "
        f"{conditions.finished:%H:%M} UTC, {platform.node()}, {os.cpu_count()} CPUs "
        f"({procstats.cpu_model()}), Python {platform.python_version()}; {versions()}; wrk 1 "
        f"thread x {plan.connections} connections, {plan.warmup:g} s warm-up + "
        f"{plan.seconds:g} s per scenario, {plan.rounds} round(s), medians; "
        f"{plan.applications:,} applications; load average before {conditions.load_before}, "
        f"after {conditions.load_after}"
    )


def table(reports: list[Report]) -> str:
    lines = [
        "| server | scenario | req/s | p50 ms | p99 ms | p99/p50 | CPU ms/req | errors "
        "| vs baseline | vs bare | target (vs bare) | vs bare, by CPU |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for report in reports:
        if report.failure:
            lines.append(f"| {report.label} | all | {report.failure} | | | | | | | | | |")
            continue
        bare = report.bare
        lines.append(
            f"| {report.label} | {BARE} | {bare.rps:,.0f} | {bare.p50_ms:.2f} | "
            f"{bare.p99_ms:.2f} | {bare.tail:.1f} | {bare.cpu_ms:.3f} | {bare.errors} "
            "| - | 100% | - | 100% |"
        )
        for name, series in report.series.items():
            need = target_for(name, report.config.database)
            lines.append(
                f"| {report.label} | {name} | {series.rps:,.0f} | {series.p50_ms:.2f} | "
                f"{series.p99_ms:.2f} | {series.tail:.1f} | {series.cpu_ms:.3f} | "
                f"{series.errors} | {pct(median(series.vs_baseline))} | "
                f"{pct(median(series.vs_bare))} | {goal_cell(series, need)} | "
                f"{pct(median(series.vs_bare_cpu))} |"
            )
        for name, problem in report.skipped.items():
            lines.append(f"| {report.label} | {name} | not run: {problem} | | | | | | | | | |")
        lines.append(
            f"| {report.label} | peak RSS | Gatehouse {report.peak_rss_mb:.0f} MB per process "
            f"({report.total_rss_mb:.0f} MB in all); bare app {report.bare_peak_rss_mb:.0f} MB "
            f"per process | | | | | | | | ≤ {MAX_RSS_MB:.0f} MB "
            f"{verdict(report.peak_rss_mb <= MAX_RSS_MB)} | |"
        )
    return "\n".join(lines)


def comparison(reports: list[Report]) -> str:
    """uvicorn against granian, scenario by scenario (only with both servers)."""
    by_config: dict[str, dict[str, Report]] = {}
    for report in reports:
        if not report.failure:
            by_config.setdefault(report.config.name, {})[report.kind] = report
    lines = [
        "| configuration | scenario | uvicorn req/s | granian req/s | granian ÷ uvicorn "
        "| uvicorn CPU ms/req | granian CPU ms/req | uvicorn p99 ms | granian p99 ms "
        "| uvicorn vs bare | granian vs bare |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for config, pair in by_config.items():
        if set(pair) != set(SERVER_KINDS):
            continue
        uv, gr = pair["uvicorn"], pair["granian"]
        names = [BARE, *uv.series]
        for name in names:
            a = uv.bare if name == BARE else uv.series.get(name)
            b = gr.bare if name == BARE else gr.series.get(name)
            if a is None or b is None:
                continue
            lines.append(
                f"| {config} | {name} | {a.rps:,.0f} | {b.rps:,.0f} | "
                f"{b.rps / a.rps if a.rps else 0:.2f} | {a.cpu_ms:.3f} | {b.cpu_ms:.3f} | "
                f"{a.p99_ms:.2f} | {b.p99_ms:.2f} | "
                f"{'100%' if name == BARE else pct(median(a.vs_bare))} | "
                f"{'100%' if name == BARE else pct(median(b.vs_bare))} |"
            )
        lines.append(
            f"| {config} | peak RSS per process (Gatehouse / bare) | "
            f"{uv.peak_rss_mb:.0f} / {uv.bare_peak_rss_mb:.0f} MB | "
            f"{gr.peak_rss_mb:.0f} / {gr.bare_peak_rss_mb:.0f} MB | | | | | | | |"
        )
    return "\n".join(lines) if len(lines) > 2 else ""


def print_report(reports: list[Report], plan: Plan, conditions: Conditions) -> None:
    print(header(plan, conditions))
    cpus = os.cpu_count() or 1
    if conditions.busy_before > cpus / 2:
        print(
            f"Note: the load average was {conditions.busy_before:.1f} on {cpus} CPUs before the "
            "run started: other work shared the machine, and throughput figures move with it "
            "(read the 'by CPU' ratios, and repeat with --rounds)."
        )
    print()
    print(table(reports))
    print()
    print("Targets (throughput against the bare FastAPI app on the same server):")
    print()
    summary = target_table(reports)
    if summary:
        print(summary)
        print()
    for line in targets(reports):
        print(line)
    earlier = earlier_targets(reports, plan.depth)
    if earlier:
        print()
        print("Earlier targets (bench/RESULTS.md: against the same-stack baseline):")
        for line in earlier:
            print(line)
    compared = comparison(reports)
    if compared:
        print()
        print("uvicorn against granian (same apps, options and processes):")
        print()
        print(compared)
    print()
    print("What each server preserved (seen from outside):")
    for line in server_checks(reports):
        print(line)

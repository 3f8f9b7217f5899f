"""The performance targets, and each one's verdict (MET or MISS) from a run's reports.

The targets are throughput ratios of a Gatehouse scenario to the bare FastAPI app on the
same server, options and number of processes, measured in the same round, plus the tail
(p99 ≤ 10 x p50 in every scenario) and memory (peak RSS per process). Throughput decides
MET or MISS; when the ratio by CPU per request falls on the other side of the goal, the
verdict says so (on a busy machine one sample was probably slowed by other work). The
two-process configuration is held to the PostgreSQL goals.

The earlier targets, against the same-stack baseline (uvicorn only), follow them.
"""

from __future__ import annotations

from bench import scenarios
from bench.results import Report, Series, median

# (sqlite, postgres)
TARGETS_VS_BARE: dict[str, tuple[float, float]] = {
    scenarios.BASELINE: (0.80, 0.80),
    scenarios.AUTHENTICATED: (0.60, 0.60),
    scenarios.READ: (0.40, 0.35),
    scenarios.LIST_FIRST: (0.10, 0.10),
    scenarios.LIST_DEEP: (0.10, 0.10),  # the deep page is a list page of 100 too
    scenarios.PROVISION_NEW: (0.08, 0.12),
}
TARGET_NAMES = {
    scenarios.BASELINE: "trivial route through the edge (baseline)",
    scenarios.AUTHENTICATED: "authenticated no-op /v1",
    scenarios.READ: "authenticated application read",
    scenarios.LIST_FIRST: "list page of 100",
    scenarios.PROVISION_NEW: "provisioning a new identity",
}
MAX_P99_OVER_P50 = 10.0
MAX_RSS_MB = 200.0
TAIL = "worst p99 / p50, every scenario"
MEMORY = "peak RSS per process"


def target_for(scenario: str, database: str) -> float | None:
    key = scenarios.LIST_DEEP if scenario.startswith(scenarios.LIST_DEEP) else scenario
    pair = TARGETS_VS_BARE.get(key)
    if pair is None:
        return None
    return pair[0] if database == "sqlite" else pair[1]


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def verdict(ok: bool) -> str:
    return "MET" if ok else "MISS"


def goal_cell(series: Series, need: float | None) -> str:
    """The goal column of the table: `≥ 40% MET`, with the CPU verdict when it differs."""
    ratio = median(series.vs_bare)
    if need is None or ratio is None:
        return "-"
    goal = f"≥ {need:.0%} {verdict(ratio >= need)}"
    cpu = median(series.vs_bare_cpu)
    if cpu is not None and (cpu >= need) != (ratio >= need):
        goal += f" (by CPU {verdict(cpu >= need)})"
    return goal


def worst_tail(report: Report) -> tuple[str, Series] | None:
    return max(report.series.items(), key=lambda kv: kv[1].tail, default=None)


def targets(reports: list[Report]) -> list[str]:
    """The targets against the bare FastAPI app, each with its figures and MET or MISS."""
    out: list[str] = []
    for report in reports:
        if report.failure:
            out.append(f"MISS {report.label}: not measured ({report.failure})")
            continue
        db = report.config.database
        for name, series in report.series.items():
            need = target_for(name, db)
            ratio = median(series.vs_bare)
            if need is None or ratio is None:
                continue
            title = TARGET_NAMES.get(name, name)
            cpu = median(series.vs_bare_cpu)
            # Throughput decides; when CPU per request says otherwise, the machine was
            # probably busy with other work during one of the samples: say so.
            tail = ""
            if cpu is not None and (cpu >= need) != (ratio >= need):
                tail = f": {verdict(cpu >= need)}, the two disagree, a noisy sample?"
            out.append(
                f"{verdict(ratio >= need)} {report.label}: {title} {ratio:.0%} of the bare "
                f"app (target ≥ {need:.0%}; by CPU {pct(cpu)}{tail}); "
                f"{pct(median(series.vs_baseline))} of the same-stack baseline"
            )
        for name in report.skipped:
            if target_for(name, db) is not None:
                out.append(f"MISS {report.label}: {name} not run ({report.skipped[name]})")
        worst = worst_tail(report)
        if worst is not None:
            out.append(
                f"{verdict(worst[1].tail <= MAX_P99_OVER_P50)} {report.label}: worst p99/p50 "
                f"{worst[1].tail:.1f} ({worst[0]}) (target ≤ {MAX_P99_OVER_P50:.0f} in every "
                "scenario)"
            )
        out.append(
            f"{verdict(report.peak_rss_mb <= MAX_RSS_MB)} {report.label}: peak RSS "
            f"{report.peak_rss_mb:.0f} MB per process (target ≤ {MAX_RSS_MB:.0f} MB)"
        )
    return out


def _cell(report: Report, key: str) -> str:
    """One target on one report: verdict, ratio to the bare app, by CPU, to the baseline."""
    if key == TAIL:
        worst = worst_tail(report)
        if worst is None:
            return "-"
        return f"{verdict(worst[1].tail <= MAX_P99_OVER_P50)} {worst[1].tail:.1f}"
    if key == MEMORY:
        return f"{verdict(report.peak_rss_mb <= MAX_RSS_MB)} {report.peak_rss_mb:.0f} MB"
    cells = []
    for name, series in report.series.items():
        same = name.startswith(key) if key == scenarios.LIST_DEEP else name == key
        need = target_for(name, report.config.database)
        ratio = median(series.vs_bare)
        if not same or need is None or ratio is None:
            continue
        cells.append(
            f"{verdict(ratio >= need)} {ratio:.0%} (CPU {pct(median(series.vs_bare_cpu))}, "
            f"baseline {pct(median(series.vs_baseline))})"
        )
    if not cells and any(n == key or n.startswith(key) for n in report.skipped):
        return "MISS (not run)"
    return "; ".join(cells) or "-"


def target_table(reports: list[Report]) -> str:
    """Targets down, configuration and server across; each cell says MET or MISS.

    A cell reads `MET 87% (CPU 85%, baseline 97%)`: throughput against the bare app (what
    decides), the same by CPU per request, and throughput against the same-stack baseline.
    """
    measured = [r for r in reports if not r.failure]
    if not measured:
        return ""
    rows = [
        (scenarios.BASELINE, TARGET_NAMES[scenarios.BASELINE]),
        (scenarios.AUTHENTICATED, TARGET_NAMES[scenarios.AUTHENTICATED]),
        (scenarios.READ, TARGET_NAMES[scenarios.READ]),
        (scenarios.LIST_FIRST, TARGET_NAMES[scenarios.LIST_FIRST]),
        (scenarios.LIST_DEEP, "list page of 100 at depth"),
        (scenarios.PROVISION_NEW, TARGET_NAMES[scenarios.PROVISION_NEW]),
    ]
    lines = [
        "| target | goal SQLite / PostgreSQL | " + " | ".join(r.label for r in measured) + " |",
        "|---|---|" + "---|" * len(measured),
    ]
    for key, title in rows:
        sqlite, postgres = TARGETS_VS_BARE[key]
        cells = " | ".join(_cell(r, key) for r in measured)
        lines.append(f"| {title} | ≥ {sqlite:.0%} / ≥ {postgres:.0%} | {cells} |")
    tail = " | ".join(_cell(r, TAIL) for r in measured)
    lines.append(f"| {TAIL} | ≤ {MAX_P99_OVER_P50:.0f} | {tail} |")
    memory = " | ".join(_cell(r, MEMORY) for r in measured)
    lines.append(f"| {MEMORY} | ≤ {MAX_RSS_MB:.0f} MB | {memory} |")
    return "\n".join(lines)


def earlier_targets(reports: list[Report], depth: int) -> list[str]:
    """The earlier targets, against the same-stack baseline (kept for continuity)."""
    out: list[str] = []
    for report in reports:
        if report.failure or report.kind != "uvicorn":
            continue
        rows = report.series
        single = report.config.workers == 1
        read = rows.get(scenarios.READ)
        ratio = median(read.vs_baseline) if read else None
        if single and ratio is not None:
            need = 0.4 if report.config.database == "postgres" else 0.3
            out.append(
                f"{verdict(ratio >= need)} {report.label}: read {ratio:.0%} of baseline "
                f"(target {need:.0%})"
            )
        new = rows.get(scenarios.PROVISION_NEW)
        ratio = median(new.vs_baseline) if new else None
        if single and ratio is not None and report.config.database == "postgres":
            out.append(
                f"{verdict(ratio >= 0.2)} {report.label}: provisioning {ratio:.0%} of "
                "baseline (target 20%)"
            )
        first = rows.get(scenarios.LIST_FIRST)
        deep = rows.get(f"{scenarios.LIST_DEEP} {depth:,}")
        if first and deep:
            out.append(
                f"{verdict(deep.p50_ms <= 1.5 * first.p50_ms)} {report.label}: list p50 at "
                f"depth {deep.p50_ms:.2f} ms vs first page {first.p50_ms:.2f} ms (target 1.5x)"
            )
    return out

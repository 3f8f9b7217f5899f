"""The benchmark harness's verdicts and helpers (bench/targets.py, bench/support.py).

The figures come from runs of bench/run.py; what is tested here is that the harness reads
them right: the goal of each target per database, MET and MISS on either side of a goal,
both ratios in the printed table, and the ports it hands to the servers it starts.
"""

from __future__ import annotations

import math
import socket

from bench.loadgen import WrkResult
from bench.results import Report, Sample, Series
from bench.scenarios import BASELINE, LIST_DEEP, MEMBER_ADD, PROVISION_NEW, READ
from bench.serving import CONFIGS
from bench.support import free_port, percentile
from bench.targets import MAX_RSS_MB, target_for, target_table, targets


def _series(vs_bare: float, vs_cpu: float, vs_baseline: float, p50: float, p99: float) -> Series:
    result = WrkResult(requests=1000, seconds=1.0, errors=0, p50_ms=p50, p90_ms=p50, p99_ms=p99)
    return Series(
        samples=[Sample(result, 0.1)],
        vs_bare=[vs_bare],
        vs_bare_cpu=[vs_cpu],
        vs_baseline=[vs_baseline],
    )


def _report(config: str, read: float, p99: float = 2.0, rss: float = 120.0) -> Report:
    report = Report(CONFIGS[config], "uvicorn", peak_rss_mb=rss)
    report.series[BASELINE] = _series(0.85, 0.84, 1.0, 1.0, 2.0)
    report.series[READ] = _series(read, read, read / 0.85, 1.0, p99)
    report.series[f"{LIST_DEEP} 2,000"] = _series(0.09, 0.11, 0.1, 1.0, 2.0)
    return report


def test_goals_differ_by_database_and_cover_the_deep_page() -> None:
    assert target_for(READ, "sqlite") == 0.40
    assert target_for(READ, "postgres") == 0.35
    assert target_for(PROVISION_NEW, "sqlite") == 0.08
    assert target_for(PROVISION_NEW, "postgres") == 0.12
    assert target_for(f"{LIST_DEEP} 100,000", "postgres") == 0.10
    assert target_for(MEMBER_ADD, "sqlite") is None


def test_the_same_ratio_meets_postgres_and_misses_sqlite() -> None:
    sqlite = targets([_report("sqlite", 0.37)])
    postgres = targets([_report("pg", 0.37)])
    read_sqlite = next(line for line in sqlite if "application read" in line)
    read_postgres = next(line for line in postgres if "application read" in line)
    assert read_sqlite.startswith("MISS ")
    assert "target ≥ 40%" in read_sqlite
    assert read_postgres.startswith("MET ")
    assert "target ≥ 35%" in read_postgres
    # Both ratios: to the bare app and to the same-stack baseline.
    assert "37% of the bare app" in read_postgres
    assert "44% of the same-stack baseline" in read_postgres


def test_cpu_disagreeing_with_throughput_is_said() -> None:
    lines = targets([_report("sqlite", 0.45)])
    deep = next(line for line in lines if "list page of 100 at depth" in line)
    assert deep.startswith("MISS ")
    assert "MET, the two disagree" in deep


def test_tail_and_memory_have_verdicts() -> None:
    lines = targets([_report("pg", 0.5, p99=12.0, rss=MAX_RSS_MB + 1)])
    assert any(line.startswith("MISS ") and "worst p99/p50 12.0" in line for line in lines)
    assert any(line.startswith("MISS ") and "peak RSS" in line for line in lines)
    lines = targets([_report("pg", 0.5)])
    assert any(line.startswith("MET ") and "worst p99/p50 2.0" in line for line in lines)


def test_target_table_has_a_verdict_per_target_and_report() -> None:
    table = target_table([_report("sqlite", 0.37), _report("pg", 0.37)])
    rows = {line.split(" | ")[0].lstrip("| "): line for line in table.splitlines()}
    read = rows["authenticated application read"]
    assert "MISS 37% (CPU 37%, baseline 44%)" in read
    assert "MET 37% (CPU 37%, baseline 44%)" in read
    assert rows["provisioning a new identity"].count("| - ") == 2  # not measured here
    assert "MET 120 MB" in rows["peak RSS per process"]


def test_a_failed_configuration_misses_every_target() -> None:
    report = Report(CONFIGS["pg2"], "granian", failure="granian server (gatehouse) exited")
    assert targets([report]) == [f"MISS {report.label}: not measured ({report.failure})"]


def test_free_port_never_repeats_and_is_bindable() -> None:
    ports = [free_port() for _ in range(20)]
    assert len(set(ports)) == len(ports)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", ports[-1]))


def test_percentile_sorts_and_handles_nothing() -> None:
    assert percentile([5.0, 1.0, 3.0], 0.5) == 3.0
    assert percentile([5.0, 1.0, 3.0], 0.99) == 5.0
    assert math.isnan(percentile([], 0.5))

"""Driving the scenarios with wrk, round by round, and taking each figure of a round.

A round measures the bare app, the same-stack baseline, every scenario, the baseline
again and the bare app again; each scenario's ratios are taken against the mean of its
own round's two reference samples, so a slow minute of a shared machine moves both sides.
With several servers (`--server both`), rounds alternate which server goes first.
"""

from __future__ import annotations

import secrets
import statistics
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from bench import procstats, scenarios
from bench.bare import HELLO_PATH
from bench.checks import check_headers, count_pids, stop_gracefully
from bench.loadgen import Load, WrkResult, run_wrk
from bench.results import Report, Sample, Series
from bench.seed import Seeded
from bench.serving import Config, Served, serve, server_env
from bench.support import free_port

BARE = "bare FastAPI app (GET /hello)"
BARE_SCENARIO = scenarios.Scenario(BARE, Load("GET", [HELLO_PATH]), 200)


@dataclass(frozen=True)
class Plan:
    applications: int
    depth: int
    seconds: float
    warmup: float
    connections: int
    rounds: int


FULL = Plan(applications=101_000, depth=100_000, seconds=10, warmup=2, connections=16, rounds=1)
QUICK = Plan(applications=3_000, depth=2_000, seconds=1, warmup=1, connections=8, rounds=1)


def measure(
    base: str, pid: int, scenario: scenarios.Scenario, plan: Plan
) -> tuple[WrkResult, float]:
    """wrk's figures for one scenario, and the server's CPU milliseconds per request."""
    nonce = secrets.token_hex(4)
    if plan.warmup:
        run_wrk(
            base,
            scenario.load,
            seconds=plan.warmup,
            connections=plan.connections,
            threads=1,
            nonce=nonce + "w",
        )
    cpu_before = procstats.cpu_seconds(pid)
    result = run_wrk(
        base,
        scenario.load,
        seconds=plan.seconds,
        connections=plan.connections,
        threads=1,
        nonce=nonce,
    )
    cpu = procstats.cpu_seconds(pid) - cpu_before
    return result, (cpu * 1000 / result.requests if result.requests else 0.0)


def _sample(served: Served, scenario: scenarios.Scenario, plan: Plan) -> Sample:
    print(f"#   {served.kind}: {scenario.name}", file=sys.stderr, flush=True)
    result, cpu_ms = measure(served.base, served.pid, scenario, plan)
    return Sample(result, cpu_ms)


def run_round(
    report: Report,
    gatehouse: Served,
    bare: Served,
    planned: list[scenarios.Scenario],
    plan: Plan,
) -> None:
    """Bare app, baseline, every scenario, baseline, bare app; ratios within the round."""
    bare_samples = [_sample(bare, BARE_SCENARIO, plan)]
    baseline_samples: list[Sample] = []
    samples: dict[str, Sample] = {}
    for scenario in [*planned, planned[0]]:  # the baseline again at the end
        if scenario.name in report.skipped:
            continue
        sample = _sample(gatehouse, scenario, plan)
        if scenario.name == scenarios.BASELINE:
            baseline_samples.append(sample)
        else:
            samples[scenario.name] = sample
    bare_samples.append(_sample(bare, BARE_SCENARIO, plan))

    bare_rps = statistics.mean(s.result.rps for s in bare_samples)
    bare_cpu = statistics.mean(s.cpu_ms for s in bare_samples)
    report.bare.samples += bare_samples
    base_rps = statistics.mean(s.result.rps for s in baseline_samples) if baseline_samples else 0
    if baseline_samples:
        samples = {scenarios.BASELINE: baseline_samples[0], **samples}
    for name, sample in samples.items():
        series = report.series.setdefault(name, Series())
        if name == scenarios.BASELINE:
            series.samples += baseline_samples
            rps = base_rps
            cpu = statistics.mean(s.cpu_ms for s in baseline_samples)
        else:
            series.samples.append(sample)
            rps, cpu = sample.result.rps, sample.cpu_ms
        if bare_rps:
            series.vs_bare.append(rps / bare_rps)
        if cpu:
            series.vs_bare_cpu.append(bare_cpu / cpu)
        if base_rps:
            series.vs_baseline.append(rps / base_rps)


def run_config(
    config: Config,
    kinds: Sequence[str],
    database_url: str,
    secret_key: str,
    seeded: Seeded,
    plan: Plan,
    workdir: Path,
    cursors: dict[str, str | None],
) -> list[Report]:
    """Start both apps under each server, check them, run every round, then stop them."""
    reports = {kind: Report(config, kind) for kind in kinds}
    with ExitStack() as stack:
        pairs: dict[str, tuple[Served, Served]] = {}
        for kind in kinds:
            try:
                port, bare_port = free_port(), free_port()
                env = server_env(database_url, secret_key, config, port)
                print(f"# {config.name}, {kind}: starting", file=sys.stderr, flush=True)
                gatehouse = stack.enter_context(
                    serve(env, port, config.workers, workdir, kind=kind, app="gatehouse")
                )
                bare = stack.enter_context(
                    serve(env, bare_port, config.workers, workdir, kind=kind, app="bare")
                )
                pairs[kind] = (gatehouse, bare)
            except RuntimeError as exc:
                print(f"# {config.name}, {kind} failed: {exc}", file=sys.stderr, flush=True)
                reports[kind].failure = str(exc)
        if not pairs:
            return list(reports.values())
        first = next(iter(pairs.values()))[0]
        if database_url not in cursors:
            print(f"#   walking the list to depth {plan.depth:,}", file=sys.stderr, flush=True)
            cursors[database_url] = scenarios.deep_cursor(first.base, seeded, plan.depth)
        planned = scenarios.build(seeded, cursors[database_url], plan.depth)
        for kind, (gatehouse, _) in pairs.items():
            report = reports[kind]
            for scenario in planned:
                problem = scenarios.check(gatehouse.base, scenario, secrets.token_hex(4))
                if problem is not None:
                    report.skipped[scenario.name] = problem
            check_headers(gatehouse, seeded, report.checks)
            report.checks.pids_seen = count_pids(gatehouse)
        order = list(pairs)
        for number in range(plan.rounds):
            print(f"# {config.name}: round {number + 1} of {plan.rounds}", file=sys.stderr)
            # Alternate which server goes first, so neither always has the later minutes.
            for kind in order if number % 2 == 0 else order[::-1]:
                gatehouse, bare = pairs[kind]
                run_round(reports[kind], gatehouse, bare, planned, plan)
        for kind, (gatehouse, bare) in pairs.items():
            report = reports[kind]
            memory = procstats.peak_memory(gatehouse.pid)
            report.peak_rss_mb, report.total_rss_mb = memory.peak_rss_mb, memory.total_peak_rss_mb
            memory = procstats.peak_memory(bare.pid)
            report.bare_peak_rss_mb = memory.peak_rss_mb
            report.bare_total_rss_mb = memory.total_peak_rss_mb
            stop_gracefully(gatehouse, report.checks)
    return list(reports.values())

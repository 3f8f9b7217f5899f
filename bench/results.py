"""What a run of bench/run.py collects: samples, their series and ratios, one report per server.

A sample is one wrk run of one scenario with the server's CPU per request. A series is
one scenario on one server over every round, with its ratios taken within each round:
*vs bare* (to the bare FastAPI app's throughput), *vs bare, by CPU* (the bare app's CPU per
request divided by the scenario's) and *vs baseline* (to the same-stack baseline). Every
figure printed is the median over the rounds.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from bench.loadgen import WrkResult
from bench.serving import Config


@dataclass(frozen=True)
class Sample:
    result: WrkResult
    cpu_ms: float  # server CPU (user + system, whole process tree) per request


@dataclass
class Series:
    """One scenario on one server: its samples and its per-round ratios."""

    samples: list[Sample] = field(default_factory=list)
    vs_bare: list[float] = field(default_factory=list)
    vs_bare_cpu: list[float] = field(default_factory=list)
    vs_baseline: list[float] = field(default_factory=list)

    def median(self, attribute: str) -> float:
        values = [float(getattr(s.result, attribute)) for s in self.samples]
        return statistics.median(values) if values else 0.0

    @property
    def rps(self) -> float:
        return self.median("rps")

    @property
    def p50_ms(self) -> float:
        return self.median("p50_ms")

    @property
    def p99_ms(self) -> float:
        return self.median("p99_ms")

    @property
    def tail(self) -> float:
        """Median over samples of p99 / p50."""
        values = [s.result.p99_ms / max(s.result.p50_ms, 1e-9) for s in self.samples]
        return statistics.median(values) if values else 0.0

    @property
    def cpu_ms(self) -> float:
        return statistics.median([s.cpu_ms for s in self.samples]) if self.samples else 0.0

    @property
    def errors(self) -> int:
        return sum(s.result.errors for s in self.samples)


def median(values: Sequence[float]) -> float | None:
    return statistics.median(values) if values else None


@dataclass
class ServerChecks:
    """What a server was seen to preserve, from the outside."""

    headers: dict[str, list[str]] = field(default_factory=dict)  # route -> header names
    missing: list[str] = field(default_factory=list)
    pids_seen: int = 0
    lifespan_startups: int = 0
    lifespan_shutdowns: int = 0
    in_flight_at_stop: str = ""  # what the request in flight at SIGTERM got
    stop_seconds: float | None = None
    exit_code: int | None = None


@dataclass
class Report:
    config: Config
    kind: str  # "uvicorn" or "granian"
    series: dict[str, Series] = field(default_factory=dict)  # scenario name -> series
    bare: Series = field(default_factory=Series)
    skipped: dict[str, str] = field(default_factory=dict)
    failure: str = ""
    peak_rss_mb: float = 0.0
    total_rss_mb: float = 0.0
    bare_peak_rss_mb: float = 0.0
    bare_total_rss_mb: float = 0.0
    checks: ServerChecks = field(default_factory=ServerChecks)

    @property
    def label(self) -> str:
        return f"{self.config.name} · {self.kind}"


def to_json(reports: list[Report]) -> list[dict[str, Any]]:
    """Every sample of every report (`bench/run.py --json FILE`)."""
    out: list[dict[str, Any]] = []
    for report in reports:
        out.append(
            {
                "config": report.config.name,
                "server": report.kind,
                "failure": report.failure,
                "bare": asdict(report.bare),
                "series": {name: asdict(series) for name, series in report.series.items()},
                "skipped": report.skipped,
                "peak_rss_mb": report.peak_rss_mb,
                "bare_peak_rss_mb": report.bare_peak_rss_mb,
                "checks": asdict(report.checks),
            }
        )
    return out

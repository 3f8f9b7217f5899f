"""What traces cost on the read benchmark (docs/operations.md, "Traces").

    .venv/bin/python bench/tracing.py [--database sqlite|postgres] [--rounds 3] [--seconds 5]
                                      [--reference PATH]

Servers, each its own process under uvicorn as `serve --no-worker` runs Gatehouse, measured
in the same run, round after round (the order turns each round):

- `off`: this tree, no OTEL_* variable (traces off);
- `on`: this tree with OTEL_EXPORTER_OTLP_ENDPOINT set and the default sampler: every
  request recorded, its spans (the request and its statements) exported over OTLP/HTTP in
  batches to a receiver in this process that answers 200 (its CPU is not the server's);
- `on-1%`: the same with `OTEL_TRACES_SAMPLER=parentbased_traceidratio` at 0.01, the setting
  docs/operations.md suggests for a busy deployment;
- `reference` (with --reference): the source tree at PATH (e.g. `git archive main | tar -x -C
  /tmp/ref`), traces off: the code before traces, to see whether off costs anything;
- the bare FastAPI app (bench/bare.py): the floor of the framework.

For each: `application read` (GET /v1/applications/{id}) and the edge baseline, driven by wrk
(1 thread, 8 connections). Figures: requests per second and the server's CPU milliseconds per
request (medians over the rounds), and the ratios `on / off` and `off / reference`; the load
average is printed with them (bench/RESULTS.md keeps them).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/ itself off the path (bench/queue.py would hide the standard library's queue).
sys.path[:] = [
    str(ROOT),
    str(ROOT / "src"),
    *(p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"),
]

from bench import procstats, scenarios  # noqa: E402
from bench.rounds import BARE_SCENARIO, measure  # noqa: E402
from bench.rounds import Plan as RoundPlan  # noqa: E402
from bench.seed import seed  # noqa: E402
from bench.serving import CONFIGS, Served, serve, server_env  # noqa: E402
from bench.support import database, free_port  # noqa: E402
from gatehouse.settings import Settings  # noqa: E402


@contextmanager
def otlp_sink() -> Iterator[str]:
    """An OTLP/HTTP endpoint that reads each export and answers 200 with an empty body."""

    class Sink(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description="The cost of traces on the read benchmark.")
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--applications", type=int, default=3_000)
    parser.add_argument("--reference", type=Path, help="a source tree measured with traces off")
    args = parser.parse_args()
    plan = RoundPlan(args.applications, 0, args.seconds, 1, 8, args.rounds)
    config = CONFIGS["sqlite" if args.database == "sqlite" else "pg"]
    secret = "bench-" + os.urandom(16).hex()
    with tempfile.TemporaryDirectory() as folder, ExitStack() as stack:
        workdir = Path(folder)
        url = stack.enter_context(database(config.database, workdir))
        from gatehouse.storage.migrate import upgrade

        upgrade(url)
        seeded = asyncio.run(seed(Settings(database_url=url, secret_key=secret), args.applications))
        endpoint = stack.enter_context(otlp_sink())
        servers: dict[str, Served] = {}
        for name in ("off", "on", "on-1%", *(["reference"] if args.reference else [])):
            port = free_port()
            env = server_env(url, secret, config, port)
            if name.startswith("on"):
                env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
            if name == "on-1%":
                env["OTEL_TRACES_SAMPLER"] = "parentbased_traceidratio"
                env["OTEL_TRACES_SAMPLER_ARG"] = "0.01"
            if name == "reference":
                tree = args.reference.resolve()
                env["PYTHONPATH"] = os.pathsep.join([str(tree / "src"), str(tree)])
            servers[name] = stack.enter_context(serve(env, port, 1, workdir))
        bare_port = free_port()
        bare_env = server_env(url, secret, config, bare_port)
        servers["bare"] = stack.enter_context(serve(bare_env, bare_port, 1, workdir, app="bare"))
        report(servers, scenarios.build(seeded, None, 0), plan, config.name)


def report(
    servers: dict[str, Served], built: list[scenarios.Scenario], plan: RoundPlan, title: str
) -> None:
    wanted = {s.name: s for s in built if s.name in (scenarios.READ, scenarios.BASELINE)}
    rps: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], list[float]] = {}
    loads = [procstats.load_average()]
    names = list(servers)
    for number in range(plan.rounds):
        order = names[number % len(names) :] + names[: number % len(names)]
        for name in order:
            for scenario in [BARE_SCENARIO] if name == "bare" else list(wanted.values()):
                print(f"# round {number + 1}: {name}, {scenario.name}", file=sys.stderr)
                result, cpu_ms = measure(servers[name].base, servers[name].pid, scenario, plan)
                rps.setdefault((name, scenario.name), []).append(result.rps)
                cpu.setdefault((name, scenario.name), []).append(cpu_ms)
        loads.append(procstats.load_average())
    print(f"{title}, {plan.rounds} rounds of {plan.seconds:g} s, medians")
    print(f"load average: {' -> '.join(loads)}")
    print(f"{'server':<10} {'scenario':<20} {'req/s':>9} {'CPU ms/req':>11}")
    for (name, scenario_name), values in rps.items():
        print(
            f"{name:<10} {scenario_name:<20} {statistics.median(values):>9.0f} "
            f"{statistics.median(cpu[(name, scenario_name)]):>11.3f}"
        )
    for scenario_name in wanted:
        ratios = [
            ("on / off", "on", "off"),
            ("on-1% / off", "on-1%", "off"),
            ("off / reference", "off", "reference"),
        ]
        for label, top, bottom in ratios:
            if (top, scenario_name) not in rps or (bottom, scenario_name) not in rps:
                continue
            throughput = statistics.median(rps[(top, scenario_name)]) / statistics.median(
                rps[(bottom, scenario_name)]
            )
            per_request = statistics.median(cpu[(top, scenario_name)]) / statistics.median(
                cpu[(bottom, scenario_name)]
            )
            print(
                f"{scenario_name}: {label}: throughput x{throughput:.3f}, CPU per request "
                f"x{per_request:.3f}"
            )


if __name__ == "__main__":
    main()

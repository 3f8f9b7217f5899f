"""Document custody benchmark (docs/documents.md): throughput and the server's memory.

    .venv/bin/python bench/documents.py                     # every store, 10 MB documents
    .venv/bin/python bench/documents.py --stores file --repeat 3 --rounds 2

For each store (`database` on SQLite, `file:///…`, `s3://…` on moto's S3-compatible server, all
started here on 127.0.0.1), a real `gatehouse serve --no-worker` process is started and driven
over HTTP, as an applicant and a reviewer would:

- upload: `POST /portal/api/documents` of a 10 MB PDF (multipart, one at a time), in MB/s of the
  original size, median of `--repeat` uploads (each sniffed, sealed, stored and recorded);
- download: `GET /staff/v1/documents/{id}/content` of the same document (opened segment by
  segment and streamed), in MB/s, median of `--repeat`;
- peak RSS: the server process's `VmHWM` after start-up and after each of `--rounds` rounds of
  8 concurrent 10 MB uploads. A server that buffered uploads whole would grow by about
  8 x 10 MB per round's concurrency, and one that leaked would keep growing round after round.

Nothing here is a test: the figures depend on the machine and its load (see bench/RESULTS.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Run as a script, this folder comes first on sys.path, where bench/queue.py and
# bench/profile.py would shadow the standard library's modules of those names.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import argparse  # noqa: E402
import asyncio  # noqa: E402
import os  # noqa: E402
import secrets  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

import httpx  # noqa: E402
import orjson  # noqa: E402

from bench.procstats import peak_memory  # noqa: E402
from bench.support import free_port, stop_process, wait_for_http  # noqa: E402

GATEHOUSE = str(Path(sys.executable).parent / "gatehouse")
MB = 1_000_000
DOCUMENT_BYTES = 10 * MB
CONCURRENT = 8
S3_ENVIRONMENT = {
    "AWS_ACCESS_KEY_ID": "gatehouse-bench",
    "AWS_SECRET_ACCESS_KEY": "gatehouse-bench-secret",
    "AWS_REGION": "us-east-1",
}


def document(size: int) -> bytes:
    """A PDF of `size` bytes: a header, then incompressible padding in a comment."""
    head = b"%PDF-1.7\n% gatehouse bench\n%"
    tail = b"\n%%EOF\n"
    return (
        head
        + os.urandom((size - len(head) - len(tail)) // 2)
        .hex()
        .encode()
        .ljust(size - len(head) - len(tail), b"0")
        + tail
    )


@dataclass
class Figures:
    store: str
    upload_mb_s: float
    download_mb_s: float
    rss_start_mb: float
    rss_rounds_mb: list[float]


class Server:
    """A `gatehouse serve --no-worker` process over a scratch SQLite database."""

    def __init__(self, folder: Path, store: str, extra_env: dict[str, str]) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {k: v for k, v in os.environ.items() if not k.startswith("GATEHOUSE_")}
        env.update(extra_env)
        env.update(
            {
                "GATEHOUSE_DATABASE_URL": f"sqlite:///{folder}/gatehouse.db",
                "GATEHOUSE_SECRET_KEY": secrets.token_urlsafe(48),
                "GATEHOUSE_PUBLIC_URL": self.base,
                "GATEHOUSE_DOCUMENT_STORE": store,
                "GATEHOUSE_RATE_LIMIT_PER_IP": "1000000",
                "GATEHOUSE_RATE_LIMIT_PER_KEY": "1000000",
                "GATEHOUSE_STAFF_MFA": "off",
                "GATEHOUSE_LOG_LEVEL": "WARNING",
            }
        )
        self.env = env
        self.folder = folder
        created = subprocess.run(
            [
                GATEHOUSE,
                "staff",
                "create",
                "--email",
                "bench@example.test",
                "--role",
                "super_admin",
            ],
            env=env,
            cwd=folder,
            capture_output=True,
            text=True,
            check=True,
        )
        self.staff_token = orjson.loads(created.stdout)["token"]
        self.process = subprocess.Popen(
            [GATEHOUSE, "serve", "--no-worker", "--host", "127.0.0.1", "--port", str(self.port)],
            env=env,
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_http(self.base + "/healthz", self.process, "gatehouse serve")

    @property
    def staff(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.staff_token}"}

    def close(self) -> None:
        stop_process(self.process, timeout=15)


async def tenant_key(client: httpx.AsyncClient, server: Server) -> dict[str, str]:
    tenant = await client.post("/staff/v1/tenants", json={"name": "Bench"}, headers=server.staff)
    tenant.raise_for_status()
    tenant_id = tenant.json()["tenantId"]
    intake = await client.post(
        f"/staff/v1/tenants/{tenant_id}/intakes",
        json={
            "name": "Bench intake",
            "checklist": [{"key": "statement", "label": "Statement", "kind": "document"}],
        },
        headers=server.staff,
    )
    intake.raise_for_status()
    key = await client.post(
        f"/staff/v1/tenants/{tenant_id}/api-keys", json={"name": "bench"}, headers=server.staff
    )
    key.raise_for_status()
    return {"Authorization": f"Bearer {key.json()['apiKey']}"}


async def applicant_client(server: Server, api: dict[str, str], n: int) -> httpx.AsyncClient:
    """A client holding the portal session of a fresh applicant."""
    client = httpx.AsyncClient(base_url=server.base, timeout=120)
    made = await client.post(
        "/v1/login-sessions",
        json={"email": f"applicant{n}@example.test", "externalRef": f"bench-{n}"},
        headers=api,
    )
    assert made.status_code == 201, made.text
    token = made.json()["loginUrl"].rsplit("/", 1)[1]
    signed = await client.post(f"/portal/login/{token}", headers={"Origin": server.base})
    assert signed.status_code == 303, signed.text
    return client


async def upload(client: httpx.AsyncClient, content: bytes, origin: str) -> str:
    answer = await client.post(
        "/portal/api/documents",
        data={"type": "statement"},
        files={"file": ("statement.pdf", content, "application/pdf")},
        headers={"Origin": origin},
    )
    assert answer.status_code == 201, answer.text
    return str(answer.json()["documentId"])


async def measure(
    store_name: str, store: str, env: dict[str, str], args: argparse.Namespace
) -> Figures:
    with tempfile.TemporaryDirectory(prefix="gh-bench-docs-") as scratch:
        folder = Path(scratch)
        server = Server(folder, store, env)
        try:
            content = document(args.size)
            async with httpx.AsyncClient(base_url=server.base, timeout=120) as staff_client:
                api = await tenant_key(staff_client, server)
                rss_start = peak_memory(server.process.pid).peak_rss_mb
                uploader = await applicant_client(server, api, 0)
                upload_seconds, download_seconds = [], []
                document_id = ""
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    document_id = await upload(uploader, content, server.base)
                    upload_seconds.append(time.perf_counter() - started)
                for _ in range(args.repeat):
                    started = time.perf_counter()
                    received = 0
                    async with staff_client.stream(
                        "GET", f"/staff/v1/documents/{document_id}/content", headers=server.staff
                    ) as answer:
                        assert answer.status_code == 200
                        async for piece in answer.aiter_raw():
                            received += len(piece)
                    download_seconds.append(time.perf_counter() - started)
                    assert received == len(content)
                await uploader.aclose()
                clients = [await applicant_client(server, api, n + 1) for n in range(CONCURRENT)]
                rounds = []
                for _ in range(args.rounds):
                    await asyncio.gather(*(upload(c, content, server.base) for c in clients))
                    rounds.append(peak_memory(server.process.pid).peak_rss_mb)
                for c in clients:
                    await c.aclose()
        finally:
            server.close()
    size_mb = args.size / MB
    return Figures(
        store_name,
        size_mb / statistics.median(upload_seconds),
        size_mb / statistics.median(download_seconds),
        rss_start,
        rounds,
    )


def start_moto() -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    endpoint = f"http://127.0.0.1:{port}"
    wait_for_http(endpoint + "/moto-api/", process, "moto server")
    return process, endpoint


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stores", default="database,file,s3")
    parser.add_argument("--size", type=int, default=DOCUMENT_BYTES)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    results: list[Figures] = []
    with tempfile.TemporaryDirectory(prefix="gh-bench-store-") as files:
        for name in args.stores.split(","):
            if name == "database":
                results.append(await measure(name, "database", {}, args))
            elif name == "file":
                results.append(await measure(name, f"file://{files}/documents", {}, args))
            elif name == "s3":
                import boto3

                moto, endpoint = start_moto()
                try:
                    env = {**S3_ENVIRONMENT, "AWS_ENDPOINT_URL": endpoint}
                    boto3.client(
                        "s3",
                        endpoint_url=endpoint,
                        region_name=env["AWS_REGION"],
                        aws_access_key_id=env["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=env["AWS_SECRET_ACCESS_KEY"],
                    ).create_bucket(Bucket="gatehouse-bench")
                    results.append(await measure(name, "s3://gatehouse-bench/documents", env, args))
                finally:
                    stop_process(moto, timeout=15)
            else:
                raise SystemExit(f"unknown store {name}")
    size = args.size / MB
    print(f"document: {size:g} MB PDF; uploads one at a time (median of {args.repeat});")
    print(
        f"peak RSS (VmHWM) of the server after start-up and after each round of "
        f"{CONCURRENT} concurrent uploads"
    )
    rounds = " ".join(f"round{n + 1:>2}" for n in range(args.rounds))
    print(f"{'store':10} {'upload MB/s':>12} {'download MB/s':>14} {'RSS start':>10} {rounds}")
    for r in results:
        peaks = " ".join(f"{p:7.0f}" for p in r.rss_rounds_mb)
        print(
            f"{r.store:10} {r.upload_mb_s:12.1f} {r.download_mb_s:14.1f} "
            f"{r.rss_start_mb:10.0f} {peaks}"
        )


if __name__ == "__main__":
    asyncio.run(main())

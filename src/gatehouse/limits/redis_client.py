"""The one Redis client of a process: redis-py's asyncio client, chosen by the URL.

GATEHOUSE_REDIS_URL (docs/operations.md, "Scaling out") names one of three deployments:

- `redis://[user:password@]host:port/db`, `rediss://…` (TLS) or `unix:///path?db=N`: one
  server, through a `ConnectionPool` of at most `MAX_CONNECTIONS` (a call beyond them
  fails at once, and the limiter serves that request unlimited with its warning). redis-py's
  `BlockingConnectionPool`, which would make it wait instead, cost about 30 us more of CPU
  per call (bench/RESULTS.md), and a process seldom has more than a few calls in flight.
  Query options are redis-py's own (`ssl_ca_certs`, `ssl_certfile`, `socket_timeout`, …).
- `redis+sentinel://[:password@]host:port[,host:port…]/service[/db]`: the primary of
  `service` as the Sentinels name it, found again after a failover.
- `redis+cluster://[user:password@]host:port[/…]` (`rediss+cluster://` for TLS): a Redis
  Cluster reached through any of its nodes. Every key Gatehouse writes carries one hash
  tag (`{gatehouse}`), so a script's keys always share a slot (limits/ratelimit.py).

hiredis parses replies when it is installed (it is a dependency). Every call is bounded by
`TIMEOUT_SECONDS` and retried once on a connection error (a server restart, an idle
connection the server closed): the limiter then serves the request unlimited
(docs/platform.md).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio import ConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff

MAX_CONNECTIONS = 64
TIMEOUT_SECONDS = 5.0
SENTINEL_SCHEME = "redis+sentinel"
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

RedisClient = Redis | RedisCluster


def _options() -> dict[str, Any]:
    return {
        "socket_timeout": TIMEOUT_SECONDS,
        "socket_connect_timeout": TIMEOUT_SECONDS,
        "retry": Retry(NoBackoff(), 1),
        "health_check_interval": 30,
    }


def redis_client(url: str) -> RedisClient:
    """The client for `url` (see the module docstring); it connects on first use."""
    url = url.removeprefix("async+")
    scheme = urlsplit(url).scheme.lower()
    if scheme in CLUSTER_SCHEMES:
        plain = CLUSTER_SCHEMES[scheme] + url[len(scheme) :]
        return RedisCluster.from_url(plain, **_options())
    if scheme == SENTINEL_SCHEME:
        return _sentinel_client(url)
    pool = ConnectionPool.from_url(url, max_connections=MAX_CONNECTIONS, **_options())
    return Redis(connection_pool=pool)


def _sentinel_client(url: str) -> Redis:
    parts = urlsplit(url)
    netloc = parts.netloc.rpartition("@")[2]
    password = unquote(parts.password) if parts.password else None
    nodes = []
    for node in netloc.split(","):
        host, _, port = node.rpartition(":")
        nodes.append((host or node, int(port) if host else 26379))
    path = [part for part in parts.path.split("/") if part]
    if not path:
        raise ValueError("a redis+sentinel:// URL names its service: …/<service>[/<db>]")
    db = int(path[1]) if len(path) > 1 else 0
    # redis-py leaves `Sentinel.__init__` unannotated.
    make_sentinel: Any = Sentinel
    sentinel = make_sentinel(nodes, sentinel_kwargs={"password": password}, **_options())
    primary: Redis = sentinel.master_for(path[0], db=db, password=password)
    return primary


async def close_client(client: RedisClient) -> None:
    """Close the client and its connections."""
    await client.aclose()

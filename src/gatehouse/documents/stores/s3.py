"""The `s3://bucket/prefix` store: one object per document, `<prefix>/<document id>`.

Any S3-compatible service works (AWS S3, MinIO, Ceph RGW, Garage, SeaweedFS, Cloudflare R2,
…): boto3 finds the endpoint, region and credentials the standard AWS way (AWS_ENDPOINT_URL or
AWS_ENDPOINT_URL_S3, AWS_REGION, AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE,
the shared config files, instance and container roles). With an endpoint of its own the store
addresses buckets by path (`endpoint/bucket/key`), which every such service understands,
unless the AWS config file chooses an `addressing_style`. The bucket must exist.

boto3 is the optional extra `gatehouse-kyc[s3]`: without it the settings refuse an s3:// store
(`settings.S3_EXTRA_MISSING`), and a document kept in S3 earlier cannot be read (S3Unavailable,
with the same message).

boto3 blocks, so every call runs in a worker thread; an upload is first drained into a
temporary file, so the request body is seekable (retries, checksums) without memory growing
with the document.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any
from urllib.parse import urlsplit

from gatehouse.documents.stores import READ_CHUNK, ObjectMissing, check_key
from gatehouse.settings import S3_EXTRA_MISSING

_CLIENTS: dict[tuple[str | None, ...], Any] = {}
_CLIENTS_LOCK = threading.Lock()
_ENDPOINT_VARIABLES = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")


def parse_s3_location(location: str) -> tuple[str, str]:
    """(bucket, prefix) of `s3://bucket/prefix`; the prefix may be empty."""
    parts = urlsplit(location)
    if parts.scheme != "s3" or not parts.netloc or parts.query or parts.fragment:
        raise ValueError("an S3 store is s3://bucket/prefix")
    return parts.netloc, parts.path.strip("/")


def _client() -> Any:
    """One boto3 client per process and endpoint (boto3 clients are thread-safe)."""
    endpoint = next((os.environ[v] for v in _ENDPOINT_VARIABLES if os.environ.get(v)), None)
    region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    cache_key = (endpoint, region, os.environ.get("AWS_PROFILE"))
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(cache_key)
        if client is None:
            client = _CLIENTS[cache_key] = _new_client(endpoint is not None)
        return client


class S3Unavailable(RuntimeError):
    """boto3 is not installed (the `gatehouse-kyc[s3]` extra)."""


def _new_client(own_endpoint: bool) -> Any:
    try:
        import boto3
        import botocore.session
        from botocore.config import Config
    except ImportError:
        raise S3Unavailable(S3_EXTRA_MISSING) from None

    core = botocore.session.get_session()
    s3_config: dict[str, str] = {}
    chosen = (core.get_scoped_config().get("s3") or {}).get("addressing_style")
    if own_endpoint and not chosen:
        s3_config["addressing_style"] = "path"
    config = Config(
        retries={"mode": "standard", "max_attempts": 5},
        connect_timeout=10,
        read_timeout=60,
        s3=s3_config or None,
    )
    return boto3.session.Session(botocore_session=core).client("s3", config=config)


def _missing(error: Exception) -> bool:
    response = getattr(error, "response", None)
    code = str((response or {}).get("Error", {}).get("Code", ""))
    return code in ("NoSuchKey", "404", "NotFound")


class S3Store:
    def __init__(self, bucket: str, prefix: str, location: str) -> None:
        self.bucket = bucket
        self.prefix = prefix
        self._location = location

    @classmethod
    def at(cls, location: str) -> S3Store:
        bucket, prefix = parse_s3_location(location)
        return cls(bucket, prefix, location)

    @property
    def location(self) -> str:
        return self._location

    def object_name(self, key: str) -> str:
        check_key(key)
        return f"{self.prefix}/{key}" if self.prefix else key

    def _upload(self, name: str, chunks: Iterator[bytes]) -> int:
        with tempfile.TemporaryFile() as spool:
            written = 0
            for chunk in chunks:
                spool.write(chunk)
                written += len(chunk)
            spool.seek(0)
            _client().put_object(
                Bucket=self.bucket,
                Key=name,
                Body=spool,
                ContentLength=written,
                ContentType="application/octet-stream",
            )
        return written

    async def put(self, key: str, chunks: Iterator[bytes]) -> int:
        return await asyncio.to_thread(self._upload, self.object_name(key), chunks)

    def _open(self, name: str) -> Any:
        client = _client()  # first: S3Unavailable without boto3
        from botocore.exceptions import ClientError

        try:
            return client.get_object(Bucket=self.bucket, Key=name)["Body"]
        except ClientError as error:
            if _missing(error):
                raise ObjectMissing(name) from None
            raise

    async def get(self, key: str) -> AsyncIterator[bytes]:
        body = await asyncio.to_thread(self._open, self.object_name(key))
        try:
            while chunk := await asyncio.to_thread(body.read, READ_CHUNK):
                yield chunk
        finally:
            await asyncio.to_thread(body.close)

    async def delete(self, key: str) -> None:
        name = self.object_name(key)
        await asyncio.to_thread(_client().delete_object, Bucket=self.bucket, Key=name)

"""Request bodies are bounded by surface before anything buffers them, over real HTTP
(uvicorn and raw sockets): a declared Content-Length over the bound is refused at once,
a chunked body is read only up to the bound, and the answer takes the surface's shape
(docs/platform.md, "Body size"). SQLite by default, PostgreSQL with
GATEHOUSE_TEST_DATABASE_URL.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from gatehouse.app import create_app
from gatehouse.runtime import Runtime
from tests.conftest import make_settings
from tests.robustness.test_text_json_routes import row_counts
from tests.support.factories import TenantFixture
from tests.support.live import serve_in_thread
from tests.support.patience import patient

pytestmark = pytest.mark.slow

JSON_LIMIT = 4096
FORM_LIMIT = 6144
SIGN_IN_LIMIT = 2048
UPLOAD_LIMIT = 8192
# Far over every bound above (and the uvicorn's buffers): a server still reading is not
# bounding the body.
GIVE_UP = 64 * 1024 * 1024


@pytest.fixture
def server(database_url: str, runtime: Runtime) -> Iterator[tuple[str, int]]:
    settings = make_settings(
        database_url,
        json_body_max_bytes=JSON_LIMIT,
        form_body_max_bytes=FORM_LIMIT,
        sign_in_body_max_bytes=SIGN_IN_LIMIT,
        upload_max_bytes=UPLOAD_LIMIT,
    )
    with serve_in_thread(lambda: create_app(settings)) as base:
        parts = urlsplit(base)
        assert parts.hostname is not None
        assert parts.port is not None
        yield parts.hostname, parts.port


class Answer:
    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {
            k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])
        }

    def json(self) -> dict[str, object]:
        if self.headers.get("transfer-encoding") == "chunked":
            raise AssertionError("unexpected chunked answer")
        return dict(json.loads(self.body))


def read_answer(sock: socket.socket) -> Answer:
    """Read one answer (headers and a Content-Length body) from the socket."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed before an answer: {data!r}"
        data += chunk
    answer = Answer(data)
    length = int(answer.headers.get("content-length", "0"))
    while len(answer.body) < length:
        chunk = sock.recv(65536)
        assert chunk, "connection closed inside the answer"
        answer.body += chunk
    return answer


def request_head(
    method: str, path: str, host: str, headers: dict[str, str], *, length: int | None = None
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{k}: {v}" for k, v in headers.items()]
    lines.append("Transfer-Encoding: chunked" if length is None else f"Content-Length: {length}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def send_chunked_until_answered(
    address: tuple[str, int], path: str, headers: dict[str, str], chunk: bytes, *, start: bytes
) -> Answer:
    """Stream a chunked body that never ends until the server answers: an answer at all
    shows the server stopped reading at its bound instead of buffering the body."""
    with socket.create_connection(address, timeout=patient(15)) as sock:
        sock.sendall(request_head("POST", path, address[0], headers))
        sock.setblocking(False)
        body = start
        sent = 0
        while True:
            assert sent < GIVE_UP, "the server kept reading a body far over its bound"
            try:
                sock.sendall(b"%x\r\n%s\r\n" % (len(body), body))
            except (BlockingIOError, BrokenPipeError, ConnectionResetError):
                break  # the server reads no more
            sent += len(body)
            body = chunk
            try:
                if sock.recv(1, socket.MSG_PEEK):
                    break  # the answer is there
                raise AssertionError("connection closed without an answer")
            except BlockingIOError:
                continue
        sock.settimeout(patient(15))
        return read_answer(sock)


def declared_too_large(
    address: tuple[str, int], method: str, path: str, headers: dict[str, str], length: int
) -> Answer:
    """Declare a large Content-Length, send a few bytes and wait: the answer comes without
    the server waiting for the rest."""
    with socket.create_connection(address, timeout=patient(15)) as sock:
        sock.sendall(request_head(method, path, address[0], headers, length=length) + b"{")
        return read_answer(sock)


def json_refusal(answer: Answer, limit: int, field: str = "body") -> None:
    assert answer.status == 413
    error = answer.json()["error"]
    assert isinstance(error, dict)
    assert error["code"] == "invalid-argument"
    assert error["details"] == [{"field": field, "issue": f"larger than {limit} bytes"}]
    assert error["requestId"] == answer.headers["service-request-id"]


async def test_a_chunked_json_body_is_read_only_up_to_its_bound(
    server: tuple[str, int], tenant: TenantFixture, runtime: Runtime
) -> None:
    before = await row_counts(runtime)
    headers = {**tenant.headers, "Content-Type": "application/json"}
    answer = send_chunked_until_answered(
        server, "/v1/applications", headers, b" " * 1024, start=b'{"email": "big@example.test",'
    )
    json_refusal(answer, JSON_LIMIT)
    assert await row_counts(runtime) == before


async def test_a_declared_length_over_the_bound_is_refused_before_authentication(
    server: tuple[str, int], runtime: Runtime
) -> None:
    before = await row_counts(runtime)
    for path in ("/v1/applications", "/staff/v1/tenants", "/portal/api/form"):
        answer = declared_too_large(
            server, "POST", path, {"Content-Type": "application/json"}, 10**9
        )
        json_refusal(answer, JSON_LIMIT)
    assert await row_counts(runtime) == before


def test_verification_registration_is_bounded_with_a_message_body(
    server: tuple[str, int],
) -> None:
    path = "/verify/clients/setWebhook/clientAuth"
    headers = {"Content-Type": "application/json"}
    for answer in (
        declared_too_large(server, "POST", path, headers, 10**9),
        send_chunked_until_answered(server, path, headers, b" " * 512, start=b"{"),
    ):
        assert answer.status == 413
        assert answer.json() == {
            "message": f"The request body is larger than {SIGN_IN_LIMIT} bytes."
        }


def page_refusal(answer: Answer, limit: int) -> None:
    assert answer.status == 413
    assert answer.headers["content-type"].startswith("text/html")
    assert answer.headers["x-frame-options"] == "DENY"
    assert f"larger than {limit} bytes".encode() in answer.body


def test_sign_in_and_page_forms_are_bounded_with_a_page(server: tuple[str, int]) -> None:
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    # The sign-in form is read before anyone is known: a body without end is cut short.
    page_refusal(
        send_chunked_until_answered(server, "/dashboard/sign-in", form, b"a" * 512, start=b"t="),
        SIGN_IN_LIMIT,
    )
    page_refusal(
        declared_too_large(server, "POST", "/dashboard/sign-in", form, 10**9), SIGN_IN_LIMIT
    )
    page_refusal(declared_too_large(server, "POST", "/portal/form-parser", form, 10**9), FORM_LIMIT)
    page_refusal(declared_too_large(server, "POST", "/dashboard/tenants", form, 10**9), FORM_LIMIT)


def test_a_multipart_upload_is_bounded_by_the_upload_limit(
    server: tuple[str, int],
) -> None:
    headers = {"Content-Type": "multipart/form-data; boundary=xyz", "Origin": "http://testserver"}
    # Within UPLOAD_MAX_BYTES and its framing, a declared length is not refused at the edge
    # (the route answers: here 401 for want of a session).
    with socket.create_connection(server, timeout=patient(15)) as sock:
        body = b"--xyz--\r\n"
        sock.sendall(
            request_head("POST", "/portal/api/documents", server[0], headers, length=len(body))
            + body
        )
        assert read_answer(sock).status == 401
    answer = declared_too_large(server, "POST", "/portal/api/documents", headers, 10**9)
    # The upload route names the file, as its own refusals do (docs/reference/portal.md §7.7).
    json_refusal(answer, UPLOAD_LIMIT + 128 * 1024, field="file")

"""The asynchronous client: the same methods as `Client`, awaited."""

from __future__ import annotations

import asyncio
import builtins
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TypeVar

import httpx

from gatehouse_client import _application_calls as calls
from gatehouse_client import _sandbox_calls as sandbox_calls
from gatehouse_client import _webhook_calls as hooks
from gatehouse_client._base import BaseClient
from gatehouse_client._calls import Call
from gatehouse_client._console import AsyncConsoleSessions
from gatehouse_client._models import (
    AccessState,
    Application,
    ApplicationPage,
    ChecklistItem,
    Decision,
    Document,
    InfoRequest,
    Intake,
    LoginSession,
    Member,
)
from gatehouse_client._retry import Action
from gatehouse_client._sweep import SweepResult, SweepTracker
from gatehouse_client._webhook_models import (
    DeliveryPage,
    RotatedSecret,
    WebhookEndpoint,
    WebhookTestResult,
)

T = TypeVar("T")

__all__ = ["AsyncClient", "AsyncSandbox"]


class AsyncClient(BaseClient):
    """Asynchronous Gatehouse tenant API client.

    ``AsyncClient(base_url, api_key)``; use as an async context manager or
    await :meth:`aclose`. Retries follow docs/reference/tenant-api.md §5.15 (see ``_retry``). Every
    write
    carries an Idempotency-Key generated once per call (or the caller's
    ``idempotency_key``), reused by every retry of that call.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float | httpx.Timeout = 10.0,
        max_retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_retry_after: float = 60.0,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        super().__init__(
            base_url,
            api_key,
            timeout=timeout,
            max_retries=max_retries,
            backoff_base=backoff_base,
            backoff_max=backoff_max,
            max_retry_after=max_retry_after,
            rng=rng,
        )
        self._sleep = sleep or asyncio.sleep
        self._http = httpx.AsyncClient(
            base_url=self.base_url,
            timeout=timeout,
            transport=transport,
            headers=self._default_headers(),
            follow_redirects=False,
        )
        self.webhooks = AsyncWebhooks(self)
        self.sandbox = AsyncSandbox(self)
        self.console_sessions = AsyncConsoleSessions(self)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def send(self, call: Call[T]) -> T:
        """Execute one call with the retry rules of docs/reference/tenant-api.md §5.15"""
        retries = 0
        while True:
            try:
                response = await self._http.request(
                    call.method,
                    call.path,
                    params=call.params,
                    json=call.body,
                    headers=self._headers(call),
                )
            except httpx.TransportError as exc:
                error, decision = self._after_transport_error(call, exc, retries)
                cause: BaseException | None = exc
            else:
                if response.is_success:
                    return self._success(call, response)
                error, decision = self._after_response(call, response, retries)
                cause = None
            if decision.action is Action.RAISE:
                raise error from cause
            if decision.action is Action.AMBIGUOUS:
                raise self._ambiguous(call, error) from cause
            if decision.action is Action.RECONCILE and call.reconcile is not None:
                settled = call.reconcile.settle(await self.send(call.reconcile.read))
                if settled is not None:
                    return settled.value
            await self._sleep(decision.delay)
            retries += 1

    # -- applications (docs/reference/tenant-api.md §5)
    # ----------------------------------------------------------

    async def create_application(
        self,
        email: str,
        *,
        external_ref: str | None = None,
        company_name: str | None = None,
        label_id: str | None = None,
        idempotency_key: str | None = None,
        idempotent: bool = True,
    ) -> Application:
        """Provision an application (docs/reference/tenant-api.md §5.1). ``created`` tells 201
        from a repeat.
        """
        return await self.send(
            calls.create_application(
                email,
                external_ref=external_ref,
                company_name=company_name,
                label_id=label_id,
                idempotency_key=idempotency_key,
                idempotent=idempotent,
            )
        )

    async def create_login_session(
        self,
        email: str,
        *,
        external_ref: str | None = None,
        company_name: str | None = None,
        label_id: str | None = None,
        redirect_path: str | None = None,
        idempotency_key: str | None = None,
    ) -> LoginSession:
        """Provision and mint a sign-in link (docs/reference/tenant-api.md §5.2). Never log
        ``login_url``.
        """
        return await self.send(
            calls.create_login_session(
                email,
                external_ref=external_ref,
                company_name=company_name,
                label_id=label_id,
                redirect_path=redirect_path,
                idempotency_key=idempotency_key,
            )
        )

    async def create_application_login_session(
        self,
        client_id: str,
        *,
        email: str | None = None,
        redirect_path: str | None = None,
        idempotency_key: str | None = None,
    ) -> LoginSession:
        """Mint a fresh link for an existing application (docs/reference/tenant-api.md §5.6)."""
        return await self.send(
            calls.create_application_login_session(
                client_id, email=email, redirect_path=redirect_path, idempotency_key=idempotency_key
            )
        )

    async def add_member(
        self,
        client_id: str,
        email: str,
        *,
        idempotency_key: str | None = None,
        idempotent: bool = True,
    ) -> Member:
        """Add portal access for one person (docs/reference/tenant-api.md §5.7)."""
        return await self.send(
            calls.add_member(
                client_id, email, idempotency_key=idempotency_key, idempotent=idempotent
            )
        )

    async def remove_member(
        self,
        client_id: str,
        uid: str,
        *,
        new_owner_uid: str | None = None,
        idempotency_key: str | None = None,
        idempotent: bool = True,
    ) -> None:
        """Remove a member, handing ownership to ``new_owner_uid`` when needed
        (docs/reference/tenant-api.md §5.8).
        """
        await self.send(
            calls.remove_member(
                client_id,
                uid,
                new_owner_uid=new_owner_uid,
                idempotency_key=idempotency_key,
                idempotent=idempotent,
            )
        )

    async def lock(
        self, client_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
    ) -> AccessState:
        """Lock applicant portal access (docs/reference/tenant-api.md §5.9)."""
        return await self.send(
            calls.lock(client_id, idempotency_key=idempotency_key, idempotent=idempotent)
        )

    async def unlock(
        self, client_id: str, *, idempotency_key: str | None = None, idempotent: bool = True
    ) -> AccessState:
        """Restore applicant portal access (docs/reference/tenant-api.md §5.10)."""
        return await self.send(
            calls.unlock(client_id, idempotency_key=idempotency_key, idempotent=idempotent)
        )

    async def get_application(self, client_id: str) -> Application:
        """Read one application (docs/reference/tenant-api.md §5.3)."""
        return await self.send(calls.get_application(client_id))

    async def list_info_requests(self, client_id: str) -> list[InfoRequest]:
        """Information requests, highest seq first (docs/reference/tenant-api.md §5.4)."""
        return await self.send(calls.list_info_requests(client_id))

    async def list_intakes(self) -> list[Intake]:
        """Usable intake labels in configured order (docs/reference/tenant-api.md §5.5)."""
        return await self.send(calls.list_intakes())

    async def list_decisions(self, client_id: str) -> list[Decision]:
        """Decision history, newest first (docs/reference/tenant-api.md §5.12)."""
        return await self.send(calls.list_decisions(client_id))

    async def get_checklist(self, client_id: str) -> list[ChecklistItem]:
        """The evidence checklist (docs/reference/tenant-api.md §5.13)."""
        return await self.send(calls.get_checklist(client_id))

    async def list_documents(self, client_id: str) -> list[Document]:
        """Document metadata (docs/reference/tenant-api.md §5.14)."""
        return await self.send(calls.list_documents(client_id))

    async def list_applications(
        self,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        status: str | None = None,
        external_ref: str | None = None,
        updated_since: datetime | str | None = None,
    ) -> ApplicationPage:
        """One page of the application list (docs/reference/tenant-api.md §5.11). Send the same
        filters
        with each ``cursor``; :meth:`iter_applications` does that for you."""
        return await self.send(
            calls.list_applications(
                limit=limit,
                cursor=cursor,
                status=status,
                external_ref=external_ref,
                updated_since=updated_since,
            )
        )

    async def iter_applications(
        self,
        *,
        status: str | None = None,
        external_ref: str | None = None,
        updated_since: datetime | str | None = None,
        page_size: int = 100,
    ) -> AsyncIterator[Application]:
        """Every matching application, paging with the cursor under fixed filters
        and yielding each clientId once (docs/reference/tenant-api.md §5.11)."""
        seen: set[str] = set()
        cursor: str | None = None
        while True:
            page = await self.list_applications(
                limit=page_size,
                cursor=cursor,
                status=status,
                external_ref=external_ref,
                updated_since=updated_since,
            )
            for application in page.data:
                if application.client_id not in seen:
                    seen.add(application.client_id)
                    yield application
            if not page.has_more or not page.next_cursor:
                return
            cursor = page.next_cursor

    async def sweep(
        self,
        since: datetime | None = None,
        overlap: timedelta = timedelta(seconds=60),
        *,
        status: str | None = None,
        page_size: int = 100,
        max_passes: int = 10,
    ) -> SweepResult:
        """Reconciliation sweep (docs/reference/tenant-api.md §5.11, docs/reference/webhooks.md §7.2
        rule 4).

        Lists everything updated since ``since - overlap`` (everything when
        ``since`` is None), runs catch-up passes for applications updated
        meanwhile, and returns ``(applications, checkpoint)``. Store the
        checkpoint only after processing the applications and pass it as the
        next ``since``.
        """
        tracker = SweepTracker(since, overlap, max_passes)
        window: datetime | bool | None = tracker.first_window()
        while window is not False:
            async for application in self.iter_applications(
                status=status,
                updated_since=window if isinstance(window, datetime) else None,
                page_size=page_size,
            ):
                tracker.add(application)
            window = tracker.next_window()
        return tracker.result()


class AsyncWebhooks:
    """Webhook endpoint management (docs/reference/webhooks.md §4, docs/reference/webhooks.md
    §4): ``async_client.webhooks``.
    """

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def create(
        self,
        url: str,
        events: Sequence[str],
        *,
        description: str | None = None,
        idempotency_key: str | None = None,
        idempotent: bool = True,
    ) -> WebhookEndpoint:
        """Register an endpoint; the answer carries ``secret``, once."""
        return await self._client.send(
            hooks.create_webhook(
                url,
                events,
                description=description,
                idempotency_key=idempotency_key,
                idempotent=idempotent,
            )
        )

    async def list(self) -> builtins.list[WebhookEndpoint]:
        return await self._client.send(hooks.list_webhooks())

    async def get(self, endpoint_id: str) -> WebhookEndpoint:
        return await self._client.send(hooks.get_webhook(endpoint_id))

    async def update(
        self,
        endpoint_id: str,
        *,
        url: str | None = None,
        events: Sequence[str] | None = None,
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> WebhookEndpoint:
        return await self._client.send(
            hooks.update_webhook(
                endpoint_id,
                url=url,
                events=events,
                description=description,
                idempotency_key=idempotency_key,
            )
        )

    async def delete(self, endpoint_id: str, *, idempotency_key: str | None = None) -> None:
        await self._client.send(hooks.delete_webhook(endpoint_id, idempotency_key=idempotency_key))

    async def enable(self, endpoint_id: str) -> WebhookEndpoint:
        return await self._client.send(hooks.set_webhook_enabled(endpoint_id, True))

    async def disable(self, endpoint_id: str) -> WebhookEndpoint:
        return await self._client.send(hooks.set_webhook_enabled(endpoint_id, False))

    async def rotate_secret(
        self, endpoint_id: str, *, idempotency_key: str | None = None
    ) -> RotatedSecret:
        """Rotate the signing secret; never repeated blindly (docs/reference/webhooks.md §4.9)."""
        return await self._client.send(
            hooks.rotate_webhook_secret(endpoint_id, idempotency_key=idempotency_key)
        )

    async def test(self, endpoint_id: str) -> WebhookTestResult:
        """Send a ``webhook.test`` event; check ``success`` (docs/reference/webhooks.md §4.10)."""
        return await self._client.send(hooks.test_webhook(endpoint_id))

    async def list_deliveries(
        self,
        endpoint_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
        status: str | None = None,
    ) -> DeliveryPage:
        return await self._client.send(
            hooks.list_webhook_deliveries(endpoint_id, limit=limit, cursor=cursor, status=status)
        )


class AsyncSandbox:
    """Sandbox-tenant helpers: ``client.sandbox`` (README: "Sandbox").

    The routes exist only for a sandbox tenant; any other tenant gets NotFound.
    """

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def simulate(
        self,
        client_id: str,
        action: str,
        *,
        comment: str | None = None,
        rejection_reason: str | None = None,
        items: Sequence[Mapping[str, str]] | None = None,
        idempotency_key: str | None = None,
        idempotent: bool = True,
    ) -> Application:
        """Move a sandbox application as the applicant or staff would, and return it.

        ``action``: ``submit``, ``request_info`` (with ``items``, ``[{"type",
        "prompt"}]``, or one default question), ``respond`` (answers every open
        item), ``approve`` (a proposal and a countersignature), ``reject`` (with
        ``rejection_reason``),
        ``hold`` or ``release``. It runs the same rules and sends the same
        events and webhooks as the real steps; a move the state does not allow
        raises FailedPrecondition. Carries an Idempotency-Key generated once per
        call (or ``idempotency_key``), reused by every retry.
        """
        return await self._client.send(
            sandbox_calls.simulate(
                client_id,
                action,
                comment=comment,
                rejection_reason=rejection_reason,
                items=items,
                idempotency_key=idempotency_key,
                idempotent=idempotent,
            )
        )

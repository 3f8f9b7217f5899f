"""gatehouse-client: the Gatehouse tenant API, with the integration rules built in.

- `Client` / `AsyncClient`: one method per tenant route, typed answers that keep
  unknown fields, typed errors, and the retry rules of spec 1 §4.15.
- `Client.iter_applications` / `Client.sweep`: cursor paging and
  reconciliation sweeps with a safe checkpoint (spec 1 §4.11).
- `verify`, `WebhookReceiver`, `SqliteDedupStore`: webhook receivers (spec 2 §5).
- `verify_callback`: verification status callbacks (spec 3).
"""

from gatehouse_client._async_client import AsyncClient, AsyncWebhooks
from gatehouse_client._client import Client, Webhooks
from gatehouse_client._errors import (
    AlreadyExists,
    AmbiguousResult,
    Conflict,
    FailedPrecondition,
    GatehouseError,
    Gone,
    InProgress,
    InvalidArgument,
    MethodNotAllowed,
    NetworkError,
    NotFound,
    PermissionDenied,
    RateLimited,
    ServerError,
    Unauthorized,
)
from gatehouse_client._models import (
    AccessState,
    Application,
    ApplicationPage,
    ApplicationStatus,
    ChecklistItem,
    Decision,
    Document,
    InfoRequest,
    InfoRequestItem,
    Intake,
    LoginSession,
    Member,
    OpenInfoRequest,
    format_timestamp,
    is_approved,
    parse_timestamp,
)
from gatehouse_client._sweep import SweepResult
from gatehouse_client._webhook_models import (
    Delivery,
    DeliveryPage,
    RotatedSecret,
    WebhookEndpoint,
    WebhookTestResult,
)
from gatehouse_client.callbacks import (
    CallbackError,
    CustomerStatus,
    VerificationCallback,
    verify_callback,
)
from gatehouse_client.dedup import DedupStore, PendingEvent, SqliteDedupStore
from gatehouse_client.events import EVENT_TYPES, Event
from gatehouse_client.receiver import Receipt, WebhookReceiver
from gatehouse_client.signing import SignatureError, compute_signature, signature_header, verify

__version__ = "0.1.0"

__all__ = [
    "EVENT_TYPES",
    "AccessState",
    "AlreadyExists",
    "AmbiguousResult",
    "Application",
    "ApplicationPage",
    "ApplicationStatus",
    "AsyncClient",
    "AsyncWebhooks",
    "CallbackError",
    "ChecklistItem",
    "Client",
    "Conflict",
    "CustomerStatus",
    "Decision",
    "DedupStore",
    "Delivery",
    "DeliveryPage",
    "Document",
    "Event",
    "FailedPrecondition",
    "GatehouseError",
    "Gone",
    "InProgress",
    "InfoRequest",
    "InfoRequestItem",
    "Intake",
    "InvalidArgument",
    "LoginSession",
    "Member",
    "MethodNotAllowed",
    "NetworkError",
    "NotFound",
    "OpenInfoRequest",
    "PendingEvent",
    "PermissionDenied",
    "RateLimited",
    "Receipt",
    "RotatedSecret",
    "ServerError",
    "SignatureError",
    "SqliteDedupStore",
    "SweepResult",
    "Unauthorized",
    "VerificationCallback",
    "WebhookEndpoint",
    "WebhookReceiver",
    "WebhookTestResult",
    "Webhooks",
    "__version__",
    "compute_signature",
    "format_timestamp",
    "is_approved",
    "parse_timestamp",
    "signature_header",
    "verify",
    "verify_callback",
]

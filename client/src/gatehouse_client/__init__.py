"""gatehouse-client: the Gatehouse tenant API, with the integration rules built in.

- `Client` / `AsyncClient`: one method per tenant route, typed answers that keep
  unknown fields, typed errors, and retries that never duplicate a write
  (README: "Retries").
- `client.sandbox.simulate`: move a sandbox tenant's application through its
  states, with the real rules, events and webhooks.
- `Client.iter_applications` / `Client.sweep`: cursor paging and
  reconciliation sweeps with a safe checkpoint (README: "Sweeps").
- `verify`, `WebhookReceiver`, `SqliteDedupStore`: webhook receivers; `verify`
  checks the Gatehouse or the Standard Webhooks signature headers.
- `Event.payload`: the typed `data` of each event type (`DecisionApproved`,
  `InfoRequestRaised`, ...; `UnknownEventData` for types this version lacks).
- `verify_callback`: verification status callbacks.
"""

from gatehouse_client._async_client import AsyncClient, AsyncSandbox, AsyncWebhooks
from gatehouse_client._client import Client, Sandbox, Webhooks
from gatehouse_client._console import AsyncConsoleSessions, ConsoleSession, ConsoleSessions
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
from gatehouse_client._sandbox_calls import SANDBOX_ACTIONS
from gatehouse_client._sweep import SweepResult
from gatehouse_client._version import __version__
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
from gatehouse_client.events import (
    ENVIRONMENTS,
    EVENT_DATA_TYPES,
    EVENT_TYPES,
    ApplicationEventData,
    ApplicationStatusChanged,
    ApplicationSubmitted,
    DecisionApproved,
    DecisionEventData,
    DecisionHold,
    DecisionProposalRejected,
    DecisionProposed,
    DecisionRejected,
    Event,
    EventData,
    InfoRequestClosed,
    InfoRequestEventData,
    InfoRequestRaised,
    InfoRequestReminder,
    InfoRequestResponded,
    UnknownEventData,
    WebhookTest,
    parse_event_data,
)
from gatehouse_client.receiver import Receipt, WebhookReceiver
from gatehouse_client.signing import (
    SignatureError,
    compute_signature,
    compute_standard_signature,
    signature_header,
    standard_signature_header,
    standard_webhooks_key,
    verify,
)

__all__ = [
    "ENVIRONMENTS",
    "EVENT_DATA_TYPES",
    "EVENT_TYPES",
    "SANDBOX_ACTIONS",
    "AccessState",
    "AlreadyExists",
    "AmbiguousResult",
    "Application",
    "ApplicationEventData",
    "ApplicationPage",
    "ApplicationStatus",
    "ApplicationStatusChanged",
    "ApplicationSubmitted",
    "AsyncClient",
    "AsyncConsoleSessions",
    "AsyncSandbox",
    "AsyncWebhooks",
    "CallbackError",
    "ChecklistItem",
    "Client",
    "Conflict",
    "ConsoleSession",
    "ConsoleSessions",
    "CustomerStatus",
    "Decision",
    "DecisionApproved",
    "DecisionEventData",
    "DecisionHold",
    "DecisionProposalRejected",
    "DecisionProposed",
    "DecisionRejected",
    "DedupStore",
    "Delivery",
    "DeliveryPage",
    "Document",
    "Event",
    "EventData",
    "FailedPrecondition",
    "GatehouseError",
    "Gone",
    "InProgress",
    "InfoRequest",
    "InfoRequestClosed",
    "InfoRequestEventData",
    "InfoRequestItem",
    "InfoRequestRaised",
    "InfoRequestReminder",
    "InfoRequestResponded",
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
    "Sandbox",
    "ServerError",
    "SignatureError",
    "SqliteDedupStore",
    "SweepResult",
    "Unauthorized",
    "UnknownEventData",
    "VerificationCallback",
    "WebhookEndpoint",
    "WebhookReceiver",
    "WebhookTest",
    "WebhookTestResult",
    "Webhooks",
    "__version__",
    "compute_signature",
    "compute_standard_signature",
    "format_timestamp",
    "is_approved",
    "parse_event_data",
    "parse_timestamp",
    "signature_header",
    "standard_signature_header",
    "standard_webhooks_key",
    "verify",
    "verify_callback",
]

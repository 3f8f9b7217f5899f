"""Identity verification (docs/reference/verification.md): verification clients and their
callbacks, customers (live and sandbox), the callback queue and its worker, the expiry sweep,
erasure of linked customers, and whether an application is verified.

What others may use: the surfaces' use cases and shapes, `application_verified` (the
checklist), `erase_linked_customers` (erasure), the callback worker and the sweep (composition).
The sandbox's own customer steps carry `sandbox` in their names.
"""

from __future__ import annotations

import asyncio

from gatehouse.runtime import Runtime
from gatehouse.verification.clients import (
    CallbackRegistrationError,
    ClientPrincipal,
    RegistrationInput,
    authenticate_client,
    check_registration,
    create_client,
    list_clients,
    register_callback,
)
from gatehouse.verification.customers import (
    change_status,
    create_customer,
    customer_for_client,
    customer_for_staff,
)
from gatehouse.verification.erasure import erase_linked_customers
from gatehouse.verification.links import application_verified
from gatehouse.verification.queries import (
    CallbackFilters,
    CustomerFilters,
    list_callbacks,
    list_customers,
)
from gatehouse.verification.sandbox import (
    change_status as change_sandbox_status,
)
from gatehouse.verification.sandbox import (
    create_customer as create_sandbox_customer,
)
from gatehouse.verification.sandbox import (
    customer_input as sandbox_customer_input,
)
from gatehouse.verification.sandbox import status_input
from gatehouse.verification.schemas import (
    CALLBACK_EXAMPLE,
    CallbackPage,
    ClientCreate,
    CreatedVerificationClient,
    CustomerCallback,
    CustomerCreate,
    CustomerPage,
    DocumentCreate,
    RetrievedCustomer,
    StaffCustomer,
    StatusChange,
    SweepResult,
    VerificationClientList,
    VerifyMessage,
    customer_input,
)
from gatehouse.verification.sweep import run_expiry_sweep, sweep_on_demand


# The callback worker's module loads when composition first calls it, not when a surface
# imports the face.
async def run_callback_worker(
    runtime: Runtime, stop: asyncio.Event, *, close_client_at_exit: bool = True
) -> None:
    """The verification callback worker (`verification/delivery.py`), until `stop` is set."""
    from gatehouse.verification import delivery

    await delivery.run_callback_worker(runtime, stop, close_client_at_exit=close_client_at_exit)


async def sample_queue(runtime: Runtime) -> None:
    """Set the verification callback queue's gauges (`verification/delivery.py`)."""
    from gatehouse.verification import delivery

    await delivery.sample_queue(runtime)


__all__ = [
    "CALLBACK_EXAMPLE",
    "CallbackFilters",
    "CallbackPage",
    "CallbackRegistrationError",
    "ClientCreate",
    "ClientPrincipal",
    "CreatedVerificationClient",
    "CustomerCallback",
    "CustomerCreate",
    "CustomerFilters",
    "CustomerPage",
    "DocumentCreate",
    "RegistrationInput",
    "RetrievedCustomer",
    "StaffCustomer",
    "StatusChange",
    "SweepResult",
    "VerificationClientList",
    "VerifyMessage",
    "application_verified",
    "authenticate_client",
    "change_sandbox_status",
    "change_status",
    "check_registration",
    "create_client",
    "create_customer",
    "create_sandbox_customer",
    "customer_for_client",
    "customer_for_staff",
    "customer_input",
    "erase_linked_customers",
    "list_callbacks",
    "list_clients",
    "list_customers",
    "register_callback",
    "run_callback_worker",
    "run_expiry_sweep",
    "sample_queue",
    "sandbox_customer_input",
    "status_input",
    "sweep_on_demand",
]

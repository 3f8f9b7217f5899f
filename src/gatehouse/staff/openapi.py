"""What /openapi.json says about each `/staff/v1` operation (docs/api-reference.md): stable
operationIds, summaries, the answers as the TypedDicts the views return, the least role,
query parameters, errors and examples, one module per area."""

from __future__ import annotations

from gatehouse.staff import (
    openapi_cases,
    openapi_identity,
    openapi_insights,
    openapi_realignment,
    openapi_tenants,
    openapi_verification,
)
from gatehouse.web.openapi import OperationTable

OPERATIONS: OperationTable = {
    **openapi_identity.OPERATIONS,
    **openapi_tenants.OPERATIONS,
    **openapi_cases.OPERATIONS,
    **openapi_verification.OPERATIONS,
    **openapi_realignment.OPERATIONS,
    **openapi_insights.OPERATIONS,
}

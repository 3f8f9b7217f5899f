"""The console tests use the webhooks tests' real receiver and delivery worker."""

from tests.webhooks.conftest import receiver, worker

__all__ = ["receiver", "worker"]

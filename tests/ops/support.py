"""Helpers of the operations tests: reading a Prometheus exposition, and the values of this
process's registry."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from gatehouse import metrics

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    """Every sample of an exposition: (name, labels) -> value."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return found


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def local(name: str, **labels: str) -> float:
    """A sample of this process's registry (0 when it was never set)."""
    return metrics.REGISTRY.get_sample_value(name, labels) or 0.0

"""``/metrics`` read as Prometheus reads it, with prometheus_client's own text parser."""

from __future__ import annotations

import socket
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(url: str) -> Samples:
    """Every sample at *url*, by name and sorted labels."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode("utf-8")
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def value(samples: Samples, name: str, **labels: str) -> float:
    """A sample's value; 0 for a labelled series not yet counted (Prometheus shows none before the first)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def free_port() -> int:
    """A port free on 127.0.0.1 just now, for a server that must be given one."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

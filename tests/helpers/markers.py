"""Reading the markers by which a test or a module says where its fixture differs from the default."""

from __future__ import annotations

import pytest


def marked_options(request: pytest.FixtureRequest, name: str) -> dict[str, object]:
    """The keywords of the marker *name* closest to the requesting test (its own, else its module's)."""
    marker = request.node.get_closest_marker(name)
    return dict(marker.kwargs) if marker is not None else {}

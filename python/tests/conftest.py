"""Fixtures shared by the tests: a store in memory, and the repository's example histories."""

import json
from pathlib import Path

import pytest

import ihigraph

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "histories"


@pytest.fixture
def store() -> ihigraph.Store:
    return ihigraph.Store()


@pytest.fixture
def examples(store: ihigraph.Store) -> ihigraph.Store:
    """A store holding the four example histories."""
    store.ingest(EXAMPLES)
    return store


@pytest.fixture
def trip() -> dict:
    return json.loads((EXAMPLES / "trip-planning.json").read_text())

"""Make the test helpers next to this file importable (pytest runs in importlib mode)."""

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


import pytest  # noqa: E402


@pytest.fixture
def default_mesh_loader():
    """The built-in mesh loader and an empty mesh cache, before and after the test."""
    from snapframe.core.inertia.mesh_calculator import mesh_cache, set_mesh_loader
    set_mesh_loader(None)
    mesh_cache().clear()
    yield
    mesh_cache().clear()

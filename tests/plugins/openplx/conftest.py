"""Shared fixtures for the OpenPLX plugin tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
DATA = REPO / "tests" / "data" / "openplx"
EXAMPLES = REPO / "resources" / "examples" / "openplx"


@pytest.fixture(scope="session")
def bundle_root() -> Path:
    """The installed openplx-bundles 0.19.0 (a test dependency of the project)."""
    openplxbundles = pytest.importorskip("openplxbundles")
    return Path(openplxbundles.bundle_path())


@pytest.fixture(scope="session")
def bundle_files(bundle_root: Path) -> list[Path]:
    return sorted(bundle_root.rglob("*.openplx"))


@pytest.fixture
def load(tmp_path: Path):
    """Load OpenPLX source text as a file in a temporary folder."""
    from snapframe.plugins.openplx.loader import load_file

    def _load(text: str, name: str = "model.openplx"):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return load_file(path)
    return _load

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def shipped():
    """The real shipped checkpoint (model/weights), loaded once for the session."""
    from model import checkpoint
    return checkpoint.load()

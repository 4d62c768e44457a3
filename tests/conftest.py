import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# Triton kernels run in Triton's CPU interpreter unless told otherwise (TRITON_INTERPRET=0 on a GPU
# machine runs tests/test_kernels.py on the compiled kernels). Set before anything imports triton:
# the model imports `kernels`, and triton reads this when it is first imported.
os.environ.setdefault("TRITON_INTERPRET", "1")


@pytest.fixture(scope="session")
def shipped():
    """The real shipped checkpoint (model/weights), loaded once for the session."""
    from redraft.model import checkpoint
    return checkpoint.load()


@pytest.fixture
def stub():
    """A stand-in backend server on a loopback port (tests/backend_stub.py), closed afterwards."""
    from backend_stub import Stub
    s = Stub()
    yield s
    s.close()

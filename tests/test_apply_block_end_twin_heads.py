"""Issue 43: a fragment that ends its block (a less indented marker after it) and whose first line
the file has in several blocks goes to the block that holds clearly more of its lines (plumbum's
atomic.py: a `with` statement rewritten as a lock taken in `try:`, its old body shown one level
deeper, after an `assert self._fileobj is not None` that `_read_all` has too, was refused as
matching more than one place).  Blocks that hold the fragment alike stay refused."""
from __future__ import annotations

from redraft.engine.apply import merge

FILE = """class Store:
    def __init__(self, path):
        self.path = path
        self.handle = None
        self.lock = Lock()

    @contextmanager
    def held(self, wait=True):
        if self.handle is None:
            return

        assert self.handle is not None
        with self.lock, file_lock(self.handle.fileno(), wait):
            if not self.path.exists():
                raise ValueError("store removed")
            self.owner = current_thread()
            try:
                yield
            finally:
                self.owner = None

    def read_all(self):
        assert self.handle is not None
        self.handle.seek(0)
        data = self.handle.read()
        return data

    def drop(self):
        self.path.unlink()
"""

NEW_BODY = """        assert self.handle is not None
        if not self.lock.acquire(blocking=wait):
            raise OSError("the store is held by another thread")
        try:
            with file_lock(self.handle.fileno(), wait):
                if not self.path.exists():
                    raise ValueError("store removed")
                self.owner = current_thread()
                try:
                    yield
                finally:
                    self.owner = None
        finally:
            self.lock.release()
"""

SNIPPET = "    # ... existing code ...\n    @contextmanager\n    # ... existing code ...\n\n" + NEW_BODY + \
    "    # ... existing code ...\n"

OLD_BODY = FILE[FILE.index("        assert self.handle is not None\n        with"):FILE.index("\n    def read_all")]


def test_rewritten_block_goes_to_the_block_holding_its_lines():
    result = merge(FILE, SNIPPET, "python")
    assert result.ok, result.reason
    assert result.text == FILE.replace(OLD_BODY, NEW_BODY)


TWINS = """def first(self):
    assert self.handle is not None
    self.handle.seek(0)
    return self.handle.read()


def second(self):
    assert self.handle is not None
    self.handle.seek(0)
    return self.handle.read()
"""

TWIN_SNIPPET = """# ... existing code ...
    assert self.handle is not None
    self.handle.flush()
    self.handle.seek(0)
    return self.handle.read()
# ... existing code ...
"""


def test_blocks_holding_the_fragment_alike_stay_refused():
    result = merge(TWINS, TWIN_SNIPPET, "python")
    assert not result.ok
    assert "more than one place" in result.reason

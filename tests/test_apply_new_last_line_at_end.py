"""Issue 43: a last fragment (no marker after it) that appends new code ending in a line the file has
elsewhere (`)`, `}`) runs to the file's end: its last line is new there, not a chance copy of an
earlier `)` up to which it would rewrite (alembic's test_postgresql.py: a new test class appended
after a test whose fragment starts at the `)` closing its second `Table(...)`, read as starting at the
first one's, the second table deleted: 6 lost lines).  A last fragment whose last line is the file's
own still ends there.  (Python: its files end with a statement, new code often with a call's `)`.)"""
from __future__ import annotations

from redraft.engine.apply import merge

PY = '''class IndexTest(TestBase):
    def test_unchanged(self):
        m1 = MetaData()
        m2 = MetaData()
        Table(
            "tbl",
            m1,
            Column("id", Integer, primary_key=True),
            Column("name", String),
        )
        Table(
            "tbl",
            m2,
            Column("id", Integer, primary_key=True),
            Column("name", String),
        )
        diffs = self._fixture(m1, m2)
        eq_(len(diffs), 0, str(diffs))
'''

PY_NEW = '''

class ComputedTest(TestBase):
    def _computed_fixture(self, type_, before, after):
        m1 = MetaData()
        m2 = MetaData()
        for m, sqltext in ((m1, before), (m2, after)):
            Table(
                "user",
                m,
                Column("id", Integer, primary_key=True),
                Column("name", String),
            )
        diffs = self._fixture(m1, m2)
        return diffs

    def test_computed_changed(self):
        self._computed_fixture(
            Text,
            "lower(name)",
            "upper(name)",
        )
'''

PY_SNIPPET = '''# ... existing code ...
        )
        diffs = self._fixture(m1, m2)
        eq_(len(diffs), 0, str(diffs))
''' + PY_NEW

def test_new_code_at_the_end_keeps_what_comes_before_its_first_line():
    original, new, snippet = PY, PY_NEW, PY_SNIPPET
    r = merge(original, snippet, "python")
    assert r.ok, r.reason
    assert r.text == original + new
    assert not r.deletions


def test_a_last_fragment_ending_as_the_file_does_still_ends_there():
    """The same Python fragment without the new class: it ends at the file's own last line."""
    snippet = '''# ... existing code ...
        )
        diffs = self._fixture(m1, m2)
        eq_(len(diffs), 1, str(diffs))
'''
    r = merge(PY, snippet, "python")
    assert r.ok, r.reason
    assert r.text == PY.replace("eq_(len(diffs), 0,", "eq_(len(diffs), 1,")

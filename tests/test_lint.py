"""lsp_server/engine/lint.py: pyflakes findings per candidate line, on real tree-sitter trees."""
from redraft.engine.infill import resolve_tree
from redraft.engine.lint import MAX_CHECKED_CHARS, problems

DOC = ('import os\n\n\ndef split(s):\n    """Two halves."""\n    \n    return a + b\n\n\n'
       'def other():\n    return os.sep + undefined_elsewhere\n')
AT = DOC.index("    \n    return") + 4


def check(doc, at, cands, uri="m.py"):
    return problems(resolve_tree(doc, None, uri), doc, at, cands)


def test_names_the_function_reads_decide():
    got = check(DOC, AT, ["a, b = s.split()", "a = b = len(s)", "x = 1", "return zz", "a = 1"])
    # defines both names the return reads: nothing to report (the other function's undefined
    # name is outside the cursor's window)
    assert got[0] == 0 and got[1] == 0
    assert got[2] == 3   # x unused, a and b undefined
    assert got[3] == 3   # zz, a and b undefined
    assert got[4] == 1   # b undefined


def test_names_mentioned_elsewhere_in_the_document_count_as_defined():
    doc = DOC + "\n\nhelper = os.getcwd\n"
    at = doc.index("    \n    return") + 4
    assert check(doc, at, ["a, b = helper(), s"]) == [0]
    assert check(doc, at, ["a, b = nowhere(), s"]) == [1]


def test_a_candidate_that_breaks_the_window_is_none():
    assert check(DOC, AT, ["a, b = (", "if s:"]) == [None, None]


def test_cursor_at_the_end_of_a_function_checks_that_function():
    doc = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x\n    \n\n\nprint(f([1]))\n"
    at = doc.index("    \n\n\n") + 4
    assert check(doc, at, ["return total", "return tot", "y = total"]) == [0, 1, 1]


def test_not_applicable():
    js = "function f(a) {\n  \n}\n"
    assert check(js, js.index("  \n") + 2, ["return a;"], uri="m.js") is None
    star = "from os.path import *\n" + DOC
    assert check(star, star.index("    \n    return") + 4, ["a, b = s"]) is None
    assert problems(None, DOC, AT, ["a, b = s"]) is None
    big = "def f():\n    x = 1\n" + "    y = x\n" * (MAX_CHECKED_CHARS // 40) + "    \n"
    assert check(big, len(big) - 1, ["return y"]) == [0]      # one candidate: checked
    assert check(big, len(big) - 1, ["return y"] * 8) is None  # eight: over the budget


def test_a_method_is_checked_alone_inside_its_class():
    cls = ("class Box:\n    size = 3\n\n    def grow(self, n):\n        \n        return self.size + extra\n\n"
           "    def other(self):\n        return nowhere\n")
    at = cls.index("        \n") + 8
    tree = resolve_tree(cls, None, "m.py")
    # the other method's undefined name is outside the window; `extra` is read, so defining it helps
    assert problems(tree, cls, at, ["extra = n * 2", "unused = n", "pass"]) == [0, 2, 1]
    # a class far larger than the window limit: its method is still checked
    filler = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(MAX_CHECKED_CHARS // 30))
    big = "class Big:\n" + filler + cls[cls.index("    def grow"):]
    at = big.index("        \n") + 8
    assert len(big) > MAX_CHECKED_CHARS
    assert check(big, at, ["extra = n * 2", "unused = n"]) == [0, 2]

"""Next edits by analogy (lsp_server/engine/next_edit/analogy.py): the last edit read as a rule and
carried to the lines it fits, each kind on the code it is meant for, and the silences."""
from redraft.engine.next_edit.analogy import CONFIRMED, UNCONFIRMED, fill, propose, rule_from


def after(text: str, line: int, history, size: int = 10) -> str | None:
    """The document with the proposal applied, or None (silence)."""
    got = propose(text, line, history, size)
    if got is None:
        return None
    a, b, new, _ = got
    lines = text.split("\n")
    return "\n".join(lines[:a] + new + lines[b:])


def test_a_rename_at_the_binding_renames_the_uses_but_not_strings_comments_or_attributes():
    text = ("def report(rows):\n    count = len(rows)\n    log.count = 0  # count the rows\n"
            "    print('count', count)\n    return count\n")
    old = "    n = len(rows)"
    history = [("    count = len(rows)", old)]
    doc = text.replace("    count = len(rows)", old)
    got = propose(doc, 1, history)
    assert got is not None and got[3] == CONFIRMED             # renamed where it is bound: sure
    assert after(doc, 1, history) == doc.replace("print('count', count)", "print('count', n)") \
                                        .replace("return count", "return n")


def test_a_word_changed_once_elsewhere_is_proposed_with_less_confidence():
    text = "x = compute(3)\ny = compute(4)\nz = compute(5)\n"
    history = [("x = compute(3)", "x = evaluate(3)")]
    doc = text.replace("x = compute", "x = evaluate")
    got = propose(doc, 0, history)
    assert got is not None and got[3] == UNCONFIRMED
    assert after(doc, 0, history) == text.replace("compute", "evaluate")


def test_the_same_edit_twice_is_confirmed():
    text = "a = cfg.timeout\nb = cfg.timeout\nc = cfg.timeout\n"
    history = [("a = cfg.timeout", "a = cfg.deadline"), ("b = cfg.timeout", "b = cfg.deadline")]
    doc = "a = cfg.deadline\nb = cfg.deadline\nc = cfg.timeout\n"
    got = propose(doc, 1, history)
    assert got[3] == CONFIRMED and after(doc, 1, history) == text.replace("timeout", "deadline")


def test_an_attribute_rename_leaves_plain_names_alone():
    doc = "self.header = val\nval = 1\nprint(self.val, val)\n"
    history = [("self.val = val", "self.header = val")]
    assert after(doc, 0, history) == "self.header = val\nval = 1\nprint(self.header, val)\n"


def test_an_argument_added_to_one_call_is_added_to_the_others_even_empty_ones():
    doc = ("def main():\n    fetch(url, retries=3)\n    fetch(other)\n    fetch()\n"
           "    refetch(url)\n")
    history = [("    fetch(url)", "    fetch(url, retries=3)")]
    assert after(doc, 1, history) == doc.replace("fetch(other)", "fetch(other, retries=3)") \
                                        .replace("fetch()", "fetch(retries=3)")


def test_a_wrapper_goes_around_values_of_lines_shaped_alike():
    doc = ("        self.worst = round(worst, 2)\n        self.best = best\n"
           "        self.runs = [t / n for t in runs]\n        self.mean = mean\n")
    history = [("        self.worst = worst", "        self.worst = round(worst, 2)")]
    assert after(doc, 0, history) == doc.replace("self.best = best", "self.best = round(best, 2)") \
                                        .replace("self.mean = mean", "self.mean = round(mean, 2)")


def test_a_decorator_goes_above_the_other_definitions_of_its_indentation():
    doc = ("class T:\n    @staticmethod\n    def a():\n        pass\n\n    def b():\n        def inner():\n"
           "            pass\n")
    history = [("    def a():", "    @staticmethod\n    def a():")]
    assert rule_from(*history[0]).kind == "decorator"
    assert after(doc, 2, history) == doc.replace("\n    def b():", "\n    @staticmethod\n    def b():")


def test_finishing_the_line_the_user_is_typing():
    # the user renamed at the binding, then typed part of the next use: finish it
    lines = ["    total = 0", "    for x in xs:", "        tot += x", "    return amount"]
    history = [("    amount = 0", "    total = 0"), ("        amount += x", "        tot += x")]
    rule, done = fill(lines, 2, history, col=len("        tot"))
    assert done == "        total += x"
    # the same line with the cursor at its end is not being typed there: nothing to finish
    assert fill(lines, 2, history) is None


def test_a_finished_line_is_not_completed_into_something_else():
    # renamed at the import, then `new OperatorSubscriber(` made `createOperatorSubscriber(` by
    # hand: the rename's result would put `new` back, which is not where the user is typing
    doc = ("import { createOperatorSubscriber } from './OperatorSubscriber';\n\n"
           "export function f() {\n  return createOperatorSubscriber(\n    sub);\n}\n")
    history = [("import { OperatorSubscriber } from './OperatorSubscriber';",
                "import { createOperatorSubscriber } from './OperatorSubscriber';"),
               ("  return new OperatorSubscriber(", "  return createOperatorSubscriber(")]
    line = 3
    assert fill(doc.split("\n"), line, history, col=len("  return createOperatorSubscriber(")) is None
    assert propose(doc, line, history, col=len("  return createOperatorSubscriber(")) is None


def test_a_line_the_user_just_wrote_is_not_edited_again():
    # an insertion already made is not made twice on the line that has it
    doc = ("        astUtils.isStatic(node.quasi);\n        check(node);\n"
           "        isStatic(other);\n")
    history = [("        isStatic(node.quasi);", "        astUtils.isStatic(node.quasi);")]
    assert after(doc, 0, history) == doc.replace("        isStatic(other)", "        astUtils.isStatic(other)")
    # a name the user kept beside the renamed one, on a line an earlier edit wrote, stays
    doc = ("const { initialTeardown: initialFinalizer } = this;\nif (initialFinalizer) {\n"
           "  initialFinalizer();\n}\n")
    history = [("const { initialTeardown } = this;", "const { initialTeardown: initialFinalizer } = this;"),
               ("if (initialTeardown) {", "if (initialFinalizer) {"),
               ("  initialTeardown();", "  initialFinalizer();")]
    assert propose(doc, 2, history) is None


def test_an_edit_that_unbalances_brackets_is_not_a_rule():
    assert rule_from("            });", "            }") is None
    assert rule_from("    V: Clone + Debug,", "    V: Debug,").kind == "span"     # balanced: still one


def test_an_argument_added_to_a_method_call_goes_to_the_same_methods_calls_only():
    doc = ("function report(node) {\n  context.report({ node }, definition);\n  report(other);\n"
           "  context.report({ other });\n}\n")
    history = [("  context.report({ node });", "  context.report({ node }, definition);")]
    # the method's other call gets it; the plain function `report` and its definition do not
    assert after(doc, 1, history) == doc.replace("context.report({ other })", "context.report({ other }, definition)")
    # a parameter added to a definition goes to the calls, method calls too
    doc = "    def load(self, path, mode):\n        pass\n\n    x = self.load(p)\n"
    history = [("    def load(self, path):", "    def load(self, path, mode):")]
    assert after(doc, 0, history) == doc.replace("self.load(p)", "self.load(p, mode)")


def test_silence_when_nothing_is_left_to_do_or_only_a_comment_changed():
    doc = "a = f(1)\nb = f(2)\n"
    assert propose(doc, 0, [("a = g(1)", "a = f(1)"), ("b = g(2)", "b = f(2)")]) is None   # done
    assert propose("x = 1  # new words\ny = 2\n", 0, [("x = 1  # old words", "x = 1  # new words")]) is None
    assert propose("x = 1\n", 0, []) is None
    assert propose("print(a)\nx = 1\n", 0, [("x = 1", "print(a)\nx = 1")]) is None   # a new statement


def test_a_rule_that_fits_too_many_lines_says_nothing():
    doc = "\n".join(f"v{i} = item" for i in range(60)) + "\nw = thing\n"
    history = [("w = item", "w = thing")]
    assert propose(doc, 60, history) is None

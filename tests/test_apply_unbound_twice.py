"""Issue 43: a tie-break may not leave a method defined twice.  The shape, from a real release
(chevrotain's recognizer_engine.ts): a snippet's fragment starts with `  }` (the end of the method
before), rewrites `ruleFinallyStateUpdate` and ends at the next method's header.  The region from
the `}` before the old method fits best; but the old method's lines have an object literal's key
(`ruleName: ...`) whose name the lines after the region use, read as a binding the region drops
(lost.unbound), so the region from the old method's own `}` was taken instead: the new method went
in above the old one, both kept.  Of the other candidates, those that would leave a name the
fragment defines twice (regions.redefined) are not taken either.  In the languages whose class
bodies hold methods ending with a brace (a Python fragment has no such weak first line; Go's methods
stand alone, not in a class's block)."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: (class opening, class closing, method header {name}, the old method's body, the new
# one's, the next method's body, method indentation)
_OLD_JS = ["this.stack.pop();", "this.occurrences.pop();", "",
           "if (this.stack.length === 0 && this.atEnd() === false) {", "  const token = this.peek(1);",
           "  const msg = this.provider.buildMessage({", "    firstToken: token,",
           "    ruleName: this.currentName(),", "  });", "  this.save(new ParseError(msg, token));", "}"]
_NEW_JS = ["this.stackIdx--;", "this.occurrenceIdx--;", "", "// back to the parent rule's name",
           "if (this.stackIdx >= 0) {", "  this.current = this.stack[this.stackIdx];", "}"]
_NEXT_JS = ["const ruleName = this.names[0];", "this.invoke(ruleName);"]
LANGS = {
    "typescript": ("class Parser {", "}", "{name}(): void {{", _OLD_JS, _NEW_JS, _NEXT_JS, "  "),
    "javascript": ("class Parser {", "}", "{name}() {{", _OLD_JS, _NEW_JS, _NEXT_JS, "  "),
    "rust": ("impl Parser {", "}", "fn {name}(&mut self) {{",
             ["self.stack.pop();", "self.occurrences.pop();", "", "if self.stack.is_empty() && !self.at_end() {",
              "    let token = self.peek(1);", "    let msg = self.provider.build_message(Message {",
              "        first_token: token,", "        rule_name: self.current_name(),", "    });",
              "    self.save(ParseError::new(msg, token));", "}"],
             ["self.stack_idx -= 1;", "self.occurrence_idx -= 1;", "", "// back to the parent rule's name",
              "if self.stack_idx >= 0 {", "    self.current = self.stack[self.stack_idx];", "}"],
             ["let rule_name = self.names[0];", "self.invoke(rule_name);"], "    "),
}


def _method(lang: str, name: str, body: list[str]) -> list[str]:
    _, _, header, *_, ind = LANGS[lang]
    return [ind + header.format(name=name)] + [ind * 2 + l if l else l for l in body] + [ind + "}"]


def _class(lang: str, update: list[str]) -> str:
    opening, closing, _, _, _, nxt, ind = LANGS[lang]
    first = ["self.a = 1;" if lang == "rust" else "this.a = 1;"]
    lines = [opening] + _method(lang, "first", first) + [""] + _method(lang, "finally_update", update) + [""] + \
        _method(lang, "subrule", nxt) + [closing]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_the_rewritten_method_replaces_the_old_one(lang):
    _, _, header, old, new, _, ind = LANGS[lang]
    snippet = ["// ... existing code ...", ind + "}", ""] + _method(lang, "finally_update", new) + \
        ["", ind + header.format(name="subrule"), ind * 2 + "// ... existing code ..."]
    r = merge(_class(lang, old), "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _class(lang, new)

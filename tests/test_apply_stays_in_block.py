"""Issue 43: after a marker deeper than the fragment, the fragment goes on in the block that marker
is in.  The shape, from a real release (sqlglot's parser.py): a snippet shows a method's new header,
a marker inside its body, a rewritten branch, a marker deeper still, then the body's last lines
(`this = None`, a new `if`, `return this`).  Those last lines rewrite the method's old ending; the
first and last of them (`this = None`, `return this`) are found together only in another method,
further down, which the merge took, rewriting that one's body and leaving this one's ending old.

The marker at the branch's depth elides lines of the method the previous fragment ended in, and
the fragment, less deep than the marker but deeper than the method, does not leave it: its place
is looked for there first (places.stays_in).  A fragment that, after such a marker, is found only
further on still goes there.  (On 9fe1149 every language rewrote the other method.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

_PY = '''class Parser:
    def parse_select(self, nested=False, table=False):
        cte = self.parse_with()
        if cte:
            this = self.parse_statement(cte)
        elif nested:
            this = self.parse_table() if table else self.parse_select(nested=True)
            this = self.parse_set_operations(this)
        else:
            this = None

        return self.parse_set_operations(this)

    def parse_with(self):
        return self.match("WITH")

    def parse_column_constraint(self):
        if self.match("CONSTRAINT"):
            this = self.parse_id_var()
        else:
            this = None

        if self.match_texts(self.CONSTRAINTS):
            return self.expression(this)

        return this
'''
_PY_SNIPPET = '''    # ... existing code ...
    def parse_select(self, nested=False, table=False):
        cte = self.parse_with()
        # ... existing code ...
        elif nested:
            this = self.parse_table() if table else self.parse_select(nested=True, operations=False)
            this = self.parse_set_operations(this)
            # ... existing code ...
            this = None

        if self.set_operation:
            return self.parse_set_operations(this)
        return this
    # ... existing code ...
'''
_PY_TRUTH = _PY.replace("self.parse_select(nested=True)", "self.parse_select(nested=True, operations=False)") \
    .replace('''
        return self.parse_set_operations(this)
''', '''
        if self.set_operation:
            return self.parse_set_operations(this)
        return this
''')
# (original, snippet, truth) per language
CASES = {"python": (_PY, _PY_SNIPPET, _PY_TRUTH)}

_C_LIKE = '''class Parser {
  parseSelect(nested, table) {
    const cte = this.parseWith();
    let result;
    if (cte) {
      result = this.parseStatement(cte);
    } else if (nested) {
      result = table ? this.parseTable() : this.parseSelect(true);
      result = this.parseSetOperations(result);
    } else {
      result = null;
    }

    return this.parseSetOperations(result);
  }

  parseWith() {
    return this.match("WITH");
  }

  parseColumnConstraint() {
    let result;
    if (this.match("CONSTRAINT")) {
      result = this.parseIdVar();
    } else {
      result = null;
    }

    if (this.matchTexts(CONSTRAINTS)) {
      return this.expression(result);
    }

    return result;
  }
}
'''
_C_SNIPPET = '''  // ... existing code ...
  parseSelect(nested, table) {
    const cte = this.parseWith();
    // ... existing code ...
    } else if (nested) {
      result = table ? this.parseTable() : this.parseSelect(true, false);
      result = this.parseSetOperations(result);
      // ... existing code ...
      result = null;
    }

    if (this.setOperation) {
      return this.parseSetOperations(result);
    }
    return result;
  }
  // ... existing code ...
'''
_C_TRUTH = _C_LIKE.replace("this.parseSelect(true);", "this.parseSelect(true, false);") \
    .replace('''
    return this.parseSetOperations(result);
''', '''
    if (this.setOperation) {
      return this.parseSetOperations(result);
    }
    return result;
''')
CASES["javascript"] = (_C_LIKE, _C_SNIPPET, _C_TRUTH)
_TS_HEADER = "parseSelect(nested: boolean, table: boolean): Node {"
CASES["typescript"] = tuple(t.replace("parseSelect(nested, table) {", _TS_HEADER)
                            .replace("let result;", "let result: Node | null;") for t in CASES["javascript"])

_RS = '''impl Parser {
    fn parse_select(&mut self, nested: bool, table: bool) -> Option<Node> {
        let cte = self.parse_with();
        let this;
        if cte.is_some() {
            this = self.parse_statement(cte);
        } else if nested {
            this = if table { self.parse_table() } else { self.parse_select(true, false) };
            this = self.parse_set_operations(this);
        } else {
            this = None;
        }

        self.parse_set_operations(this)
    }

    fn parse_with(&mut self) -> Option<Node> {
        self.match_token("WITH")
    }

    fn parse_column_constraint(&mut self) -> Option<Node> {
        let this;
        if self.match_token("CONSTRAINT").is_some() {
            this = self.parse_id_var();
        } else {
            this = None;
        }

        if self.match_texts(CONSTRAINTS) {
            return self.expression(this);
        }

        this
    }
}
'''
_RS_SNIPPET = '''    // ... existing code ...
    fn parse_select(&mut self, nested: bool, table: bool) -> Option<Node> {
        let cte = self.parse_with();
        // ... existing code ...
        } else if nested {
            this = if table { self.parse_table() } else { self.parse_select(true, false).or(self.last) };
            this = self.parse_set_operations(this);
            // ... existing code ...
            this = None;
        }

        if self.set_operation {
            return self.parse_set_operations(this);
        }
        this
    }
    // ... existing code ...
'''
_RS_TRUTH = _RS.replace("self.parse_select(true, false) }", "self.parse_select(true, false).or(self.last) }") \
    .replace('''
        self.parse_set_operations(this)
''', '''
        if self.set_operation {
            return self.parse_set_operations(this);
        }
        this
''')
CASES["rust"] = (_RS, _RS_SNIPPET, _RS_TRUTH)

_GO = '''package parser

func (p *Parser) parseSelect(nested bool, table bool) *Node {
	cte := p.parseWith()
	var this *Node
	if cte != nil {
		this = p.parseStatement(cte)
	} else if nested {
		this = p.parseTable()
		this = p.parseSetOperations(this)
	} else {
		this = nil
	}

	return p.parseSetOperations(this)
}

func (p *Parser) parseWith() *Node {
	return p.match("WITH")
}

func (p *Parser) parseColumnConstraint() *Node {
	var this *Node
	if p.match("CONSTRAINT") != nil {
		this = p.parseIDVar()
	} else {
		this = nil
	}

	if p.matchTexts(constraints) {
		return p.expression(this)
	}

	return this
}
'''
_GO_SNIPPET = '''// ... existing code ...
func (p *Parser) parseSelect(nested bool, table bool) *Node {
	cte := p.parseWith()
	// ... existing code ...
	} else if nested {
		this = p.parseTable(table)
		this = p.parseSetOperations(this)
		// ... existing code ...
		this = nil
	}

	if p.setOperation {
		return p.parseSetOperations(this)
	}
	return this
}
// ... existing code ...
'''
_GO_TRUTH = _GO.replace("this = p.parseTable()", "this = p.parseTable(table)").replace('''
	return p.parseSetOperations(this)
''', '''
	if p.setOperation {
		return p.parseSetOperations(this)
	}
	return this
''')
CASES["go"] = (_GO, _GO_SNIPPET, _GO_TRUTH)


@pytest.mark.parametrize("lang", sorted(CASES))
def test_ending_stays_in_the_method_the_marker_is_in(lang):
    original, snippet, truth = CASES[lang]
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == truth


@pytest.mark.parametrize("lang", sorted(CASES))
def test_the_other_method_is_left_as_it_was(lang):
    original, snippet, _ = CASES[lang]
    r = merge(original, snippet, lang)
    tail = original[original.index("parseColumnConstraint" if lang != "python" and lang != "rust"
                                   else "parse_column_constraint"):]
    assert r.ok and r.text.endswith(tail)


@pytest.mark.parametrize("lang", sorted(CASES))
def test_found_only_further_on_it_still_goes_there(lang):
    """The same fragment when the method the marker is in has no line like its first one: it is
    looked for in the rest of the file, as before (here it fits the other method's ending only)."""
    original, snippet, _ = CASES[lang]
    null = {"python": "None", "go": "nil", "rust": "None"}.get(lang, "null")
    first = original.index(f"this = {null}" if lang in ("python", "go", "rust") else "result = null")
    cut = original.index("\n", first) + 1
    original = original[:first] + original[first:cut].replace(null, "empty()") + original[cut:]
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text.count(".set_operation" if lang in ("python", "rust") else ".setOperation") == 1
    assert "empty()" in r.text


# A first line without words (`}`) after such a marker, the fragment's other lines all new
# (@tanstack/store's derived.ts: `}`, `}`, a new loop, `}`, `}` after a marker inside a loop's
# branch took another method's end, 60 lines on, and replaced its `if` block: 3 lost lines).
_DERIVED = '''class Derived {
  register(deps) {
    for (const dep of deps) {
      if (dep.isDerived) {
        this.register(dep.deps)
      } else {
        let linked = storeToDerived.get(dep)
        if (!linked) {
          linked = new Set()
          storeToDerived.set(dep, linked)
        }
        linked.add(this)

        // register the store as related to this derived
        registerStore(this, dep)
      }
    }
  }

  unregister(deps) {
    for (const dep of deps) {
      if (dep.isDerived) {
        this.unregister(dep.deps)
      } else {
        storeToDerived.get(dep)?.delete(this)
      }
    }
  }

  checkIfRecalculationNeeded() {
    let shouldRecompute = false
    for (const dep of this.deps) {
      if (dep.changed) {
        shouldRecompute = true
      }
    }

    if (shouldRecompute) {
      this.recompute()
    }
  }
}
'''
_DERIVED_SNIPPET = '''  // ... existing code ...
  register(deps) {
    const toSort = new Set()
    for (const dep of deps) {
      // ... existing code ...
        linked.add(this)
        toSort.add(linked)

        // register the store as related to this derived
        // ... existing code ...
      }
    }
    for (const arr of toSort) {
      arr.sort(byDependency)
    }
  }
  // ... existing code ...
'''
_DERIVED_TRUTH = _DERIVED.replace("  register(deps) {\n", "  register(deps) {\n    const toSort = new Set()\n").replace(
    "        linked.add(this)\n", "        linked.add(this)\n        toSort.add(linked)\n").replace(
    "      }\n    }\n  }\n\n  unregister",
    "      }\n    }\n    for (const arr of toSort) {\n      arr.sort(byDependency)\n    }\n  }\n\n  unregister")


@pytest.mark.parametrize("lang", ["javascript", "typescript"])
def test_closing_braces_then_new_lines_stay_in_the_method(lang):
    r = merge(_DERIVED, _DERIVED_SNIPPET, lang)
    assert r.ok, r.reason
    assert r.text == _DERIVED_TRUTH
    assert "if (shouldRecompute) {" in r.text

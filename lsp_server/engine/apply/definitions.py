"""Definitions in source text, found with tree-sitter, for apply.py's merge: what a snippet's
functions, classes, methods, impls and types are called, where they start (their comments,
decorators and attributes included) and end, and what they contain; and how many syntax errors a
text has (the merge's "parses at least as well" check)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from redraft.engine.syntax.languages import COMMENT_TYPES


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _error_count(lang, text: str, tree=None) -> int:
    return _errors_under((tree or lang.parser().parse(text.encode("utf-8"))).root_node)


def _errors_under(root) -> int:
    """ERROR and MISSING nodes in the tree under `root`, itself included."""
    n, stack = 0, [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            n += 1
        if node.has_error or node.is_missing:
            stack.extend(node.children)
    return n


def own_errors(lang, text: str, written: list[tuple[int, int]]) -> tuple[int, list[tuple[int, int, int]]]:
    """(syntax errors in `text`, those of them that are the written lines' own, as (first line,
    last line, errors), 0-based).  An error is the lines' own when it lies inside a run of lines
    the snippet wrote (`written`, [start, end) line spans), before the run's last line, in a
    top-level statement that starts at one of the run's lines, and that statement parsed alone has
    the same error: the error does not depend on where the lines went.  A grammar that cannot read
    a construct (tree-sitter-typescript and a call signature returning a function type, followed by
    another signature) is not the merge's doing."""
    root = lang.parser().parse(text.encode("utf-8")).root_node
    nodes = _error_nodes(root)
    own: list[tuple[int, int, int]] = []
    alone: dict[int, list[bytes]] = {}    # a top-level statement's errors parsed alone, by its id
    for node in nodes:
        a, b = node.start_point[0], node.end_point[0]
        top = node
        while top.parent is not None and top.parent.id != root.id:
            top = top.parent              # the top-level statement around it
        if top.id == node.id or not any(s <= top.start_point[0] <= a and b < e - 1 for s, e in written):
            continue
        if top.id not in alone:
            alone[top.id] = [n.text for n in _error_nodes(lang.parser().parse(top.text).root_node)]
        if node.text in alone[top.id]:
            own.append((a, b, _errors_under(node)))
    return sum(map(_errors_under, nodes)), own


def _error_nodes(root) -> list:
    """The outermost ERROR / MISSING nodes under `root`."""
    out, stack = [], [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            out.append(node)
        elif node.has_error:
            stack.extend(node.children)
    return out


_DEF_TYPES = {
    "python": {"function_definition", "class_definition", "decorated_definition"},
    "javascript": {"function_declaration", "generator_function_declaration", "class_declaration",
                   "method_definition", "lexical_declaration", "variable_declaration", "export_statement",
                   "abstract_class_declaration", "interface_declaration", "type_alias_declaration",
                   "enum_declaration"},
    "rust": {"function_item", "impl_item", "struct_item", "enum_item", "trait_item", "type_item",
             "const_item", "static_item", "union_item", "macro_definition", "mod_item"},
    "go": {"function_declaration", "method_declaration", "type_declaration"},
}
_DEF_TYPES["typescript"] = _DEF_TYPES["typescriptreact"] = _DEF_TYPES["javascript"]
_ATTACHED = COMMENT_TYPES | {"attribute_item", "decorator"}      # stays with the definition below it
_CLASS_WRAP = {k: ("class __redraft__ {", "}") for k in ("javascript", "typescript", "typescriptreact")}
_FUNC_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}


@dataclass
class Def:
    name: str
    key: str                          # what definitions are matched by
    parent: str | None                # the qualified key of the enclosing class/impl
    start: int                        # line of the definition (decorators included)
    end: int                          # last line
    comment_start: int                # first line of the comments/attributes right above it
    indent_text: str
    text: list[str]                   # its lines, comments included when the snippet has them
    members: list["Def"] | None = None
    scope: tuple[int, int] | None = None   # line range of the enclosing class
    trailing: list[str] = field(default_factory=list)   # comment lines that end its body (Python)
    method: bool = False              # a snippet's method that parses only inside a class
    first: bool = False               # a snippet's member shown before any marker in its class

    @property
    def has_comment(self) -> bool:
        return self.comment_start < self.start


def _txt(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def _def_info(lang, node):
    """(name, key, body-with-members or None) for a definition node, else None."""
    t, name = node.type, node.child_by_field_name("name")
    if t not in _DEF_TYPES.get(lang.name, ()):
        return None
    if t == "decorated_definition":
        inner = node.child_by_field_name("definition")
        return _def_info(lang, inner) if inner is not None else None
    if t == "export_statement":
        decl = node.child_by_field_name("declaration")
        return _def_info(lang, decl) if decl is not None else None
    if t in ("lexical_declaration", "variable_declaration"):
        decls = [c for c in node.named_children if c.type == "variable_declarator"]
        if len(decls) != 1 or (decls[0].child_by_field_name("value") is None
                               or decls[0].child_by_field_name("value").type not in _FUNC_VALUES):
            return None
        n = _txt(decls[0].child_by_field_name("name"))
        return n, n, None
    if t == "impl_item":
        trait = node.child_by_field_name("trait")
        key = "impl " + (_txt(trait) + " for " if trait is not None else "") + _txt(node.child_by_field_name("type"))
        return key, key, node.child_by_field_name("body")
    if t == "method_declaration":
        recv = _txt(node.child_by_field_name("receiver"))
        rtype = re.sub(r"[\s*]|\[.*", "", recv.strip("()").split()[-1]) if recv.strip("() ") else ""
        return _txt(name), f"({rtype}).{_txt(name)}", None
    if t == "type_declaration":
        specs = [c for c in node.named_children if c.type in ("type_spec", "type_alias")]
        if not specs:
            return None
        n = _txt(specs[0].child_by_field_name("name"))
        return n, n, None
    if name is None:
        return None
    body = node.child_by_field_name("body") if t in ("class_definition", "class_declaration", "trait_item", "mod_item",
                                                     "abstract_class_declaration") else None
    return _txt(name), _txt(name), body


def _defs_in(lang, container, lines, parent, scope, known, strict) -> list[Def] | None:
    """Definitions among the children of `container`. strict (a snippet): None when a child is
    neither a definition, nor an attached comment, nor text already in the file (`known`)."""
    out: list[Def] = []
    pending: int | None = None        # first line of the comments right above the next child
    prev_end = -2
    kids = container.named_children
    for c in kids:
        s, e = c.start_point[0], c.end_point[0]
        if c.type in _ATTACHED:
            if c.end_point[1] == 0 and e > s:      # a `///` comment ends at column 0 of the next row
                e -= 1
            pending = s if pending is None or s > prev_end + 1 else pending
            prev_end = e
            continue
        info = _def_info(lang, c)
        cstart = pending if pending is not None and prev_end + 1 == s else s
        pending, prev_end = None, e
        if info is None:
            if strict and (c.type == "ERROR" or not all(l.strip() in known for l in _txt(c).split("\n"))):
                return None
            continue
        if lines[s][:len(lines[s]) - len(lines[s].lstrip())].strip() or _indent(lines[s]) != c.start_point[1]:
            if strict:
                return None
            continue                  # does not start its line
        name, key, body = info
        e = _code_end(c)              # comments trailing a Python body belong to what follows
        qual = key if parent is None else f"{parent}.{key}"
        d = Def(name, key, parent, s, e, cstart, lines[s][:_indent(lines[s])], lines[cstart:e + 1], scope=scope,
                trailing=lines[e + 1:c.end_point[0] + 1])
        if body is not None:
            d.members = _defs_in(lang, body, lines, qual, (s, e), known, False)
        out.append(d)
    if strict and pending is not None:
        tail = [l.strip() for l in lines[pending:prev_end + 1]]
        if not all(l in known for l in tail):
            return None
    return out


def _code_end(node) -> int:
    while node.children:
        code = [c for c in node.children if c.type not in COMMENT_TYPES]
        if not code:
            break
        node = code[-1]
    return node.end_point[0] - (1 if node.end_point[1] == 0 and node.end_point[0] > node.start_point[0] else 0)


def _has_empty_body(node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "block" and not any(c.type not in COMMENT_TYPES for c in n.named_children):
            return True
        stack.extend(n.children)
    return False


def collect_defs(lang, orig: list[str]) -> list[Def]:
    tree = lang.parser().parse("\n".join(orig).encode("utf-8"))
    top = _defs_in(lang, tree.root_node, orig, None, None, frozenset(), False) or []
    flat: list[Def] = []
    stack = list(top)
    while stack:
        d = stack.pop()
        flat.append(d)
        stack.extend(d.members or ())
    return flat


def fragment_defs(lang, lines: list[str], known: frozenset[str]) -> list[Def] | None:
    """The fragment as a list of complete definitions, or None if it is something else."""
    base = min(_indent(l) for l in lines if l.strip())
    src_lines = [l[base:] if l.strip() else "" for l in lines] if lang.indent_blocks else list(lines)
    src = "\n".join(src_lines)
    tree = lang.parser().parse(src.encode("utf-8"))
    container, shift = tree.root_node, 0
    if _error_count(lang, src, tree) and lang.name in _CLASS_WRAP:   # methods shown without their class
        src_lines = [_CLASS_WRAP[lang.name][0]] + src_lines + [_CLASS_WRAP[lang.name][1]]
        src = "\n".join(src_lines)
        tree = lang.parser().parse(src.encode("utf-8"))
        body = tree.root_node.named_children[0].child_by_field_name("body") if tree.root_node.named_children else None
        container, shift = body, 1
    if container is None or _error_count(lang, src, tree) or (lang.indent_blocks and _has_empty_body(tree.root_node)):
        return None                   # `def f():` alone is a header line, not a definition
    defs = _defs_in(lang, container, src_lines, None, None, known, True)
    if not defs:
        return None
    if shift:
        stack = list(defs)
        while stack:
            d = stack.pop()
            d.start, d.end, d.comment_start = d.start - shift, d.end - shift, d.comment_start - shift
            d.method = True
            stack.extend(d.members or ())
    covered = {j for d in defs for j in range(d.comment_start, d.end + 1)}
    if lang.indent_blocks and any(lines[j].lstrip().startswith("#") and _indent(lines[j]) <= _indent(lines[d.start])
                                  for d in defs for j in range(d.start + 1, d.end + 1)):
        return None                   # a comment dedented inside a Python body: probably cut apart
    if any(l.strip() and j not in covered and l.strip() not in known for j, l in enumerate(lines)):
        return None                   # new text outside the definitions: anchor it by lines instead
    for d, nxt in zip(defs, defs[1:] + [None]):  # lines after it, more indented: the rest of its body
        stop = nxt.comment_start if nxt is not None else len(lines)
        more = [l for l in lines[d.end + 1:stop] if l.strip()]
        d.trailing += [l for l in more if _indent(l) > _indent(lines[d.start])]
    if lang.indent_blocks:                       # back to the fragment's real indentation (and blank lines)
        stack = list(defs)
        while stack:
            d = stack.pop()
            d.indent_text = lines[d.start][:_indent(lines[d.start])]
            d.text = lines[d.comment_start:d.end + 1]
            stack.extend(d.members or ())
    return defs

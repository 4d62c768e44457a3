"""Issue 43: a snippet without any marker that starts and ends with the file's first and last lines
is the whole new file, even when its lines parse as definitions.  The shape, from a real release
(orjson's serialize/mod.rs): a list of `mod` declarations, one gone (`mod json;`), two new.  The
merge read each `mod` line as a definition and matched them by name, so the one the snippet no
longer has stayed (silently wrong).  The same with functions: a file of three functions written out
again with the middle one replaced by another kept the old one.  Now such a snippet replaces the
file; a snippet that is one of the file's definitions alone is still matched by name, and one
whose first or last line is not the file's is not the whole file.  (On 7e51329 every language's
case kept the old definition.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (old file, new file): the middle definition replaced by another
LANGS = {
    "python": ('import os\n\n\ndef first():\n    return 1\n\n\ndef middle():\n    return 2\n\n\n'
               'def last():\n    return os.sep\n',
               'import os\n\n\ndef first():\n    return 1\n\n\ndef other():\n    return 4\n\n\n'
               'def last():\n    return os.sep\n'),
    "javascript": ("import os from 'node:os'\n\nexport function first() {\n  return 1\n}\n\n"
                   "export function middle() {\n  return 2\n}\n\nexport function last() {\n  return os.EOL\n}\n"
                   "\nexport default first\n",
                   "import os from 'node:os'\n\nexport function first() {\n  return 1\n}\n\n"
                   "export function other() {\n  return 4\n}\n\nexport function last() {\n  return os.EOL\n}\n"
                   "\nexport default first\n"),
    "typescript": ("import os from 'node:os'\n\nexport function first(): number {\n  return 1\n}\n\n"
                   "export function middle(): number {\n  return 2\n}\n\n"
                   "export function last(): string {\n  return os.EOL\n}\n\nexport default first\n",
                   "import os from 'node:os'\n\nexport function first(): number {\n  return 1\n}\n\n"
                   "export function other(): number {\n  return 4\n}\n\n"
                   "export function last(): string {\n  return os.EOL\n}\n\nexport default first\n"),
    "go": ('package serialize\n\nfunc First() int {\n\treturn 1\n}\n\nfunc Middle() int {\n\treturn 2\n}\n\n'
           'func Last() string {\n\treturn "last"\n}\n\nvar Default = First\n',
           'package serialize\n\nfunc First() int {\n\treturn 1\n}\n\nfunc Other() int {\n\treturn 4\n}\n\n'
           'func Last() string {\n\treturn "last"\n}\n\nvar Default = First\n'),
    "rust": ("// SPDX-License-Identifier: (Apache-2.0 OR MIT)\n\nmod error;\nmod json;\nmod per_type;\n"
             "mod writer;\n\npub use writer::serialize;\n",
             "// SPDX-License-Identifier: (Apache-2.0 OR MIT)\n\nmod error;\nmod obtype;\nmod per_type;\n"
             "mod state;\nmod writer;\n\npub use writer::serialize;\n"),
}


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_whole_new_file_of_definitions_drops_the_one_it_no_longer_has(lang):
    old, new = LANGS[lang]
    r = merge(old, new, lang)
    assert r.ok, r.reason
    assert r.text == new


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_with_a_first_line_of_its_own_it_is_not_the_whole_file(lang):
    """A comment above the file's first line that the snippet does not show: the snippet does not
    start as the file does, so it is not the whole file, and the comment stays."""
    old, new = LANGS[lang]
    note = "# a note" if lang == "python" else "// a note"
    r = merge(note + "\n" + old, new, lang)
    assert r.ok, r.reason
    assert r.text.startswith(note + "\n")


def test_one_definition_alone_is_still_matched_by_name():
    """The file's first function written out alone (its first line is the file's, its last is not):
    the other functions stay."""
    old, _ = LANGS["javascript"]
    r = merge(old, "import os from 'node:os'\n\nexport function first() {\n  return 10\n}\n", "javascript")
    assert r.ok, r.reason
    assert "return 10" in r.text and "export function middle()" in r.text and "export default first" in r.text


def test_a_shorter_whole_new_file_replaces_the_file():
    """abitype's dist/cjs/narrow.js: the new release moves `exports.narrow = narrow;` up and drops
    `exports.narrow = void 0;`; the snippet, one line shorter than the file, starts and ends as the
    file does.  The merge put the moved line in and kept both old ones.  (Wrong on 7e51329.)"""
    old = ('"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
           'exports.narrow = void 0;\nfunction narrow(value) {\n    return value;\n}\n'
           'exports.narrow = narrow;\n//# sourceMappingURL=narrow.js.map\n')
    new = ('"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
           'exports.narrow = narrow;\nfunction narrow(value) {\n    return value;\n}\n'
           '//# sourceMappingURL=narrow.js.map\n')
    r = merge(old, new, "javascript")
    assert r.ok, r.reason
    assert r.text == new

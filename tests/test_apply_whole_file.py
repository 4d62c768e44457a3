"""Issue 43: a snippet without any marker that is as long as the file and like it is the new file
whole.  A version file's one line (`__version__ = "23.6.0"`, `export const version = '1.0.6'`)
written out new has no line in common with the old one, so no line anchors it: the merge used to
refuse ("its first line is not in the file").  Now such a snippet replaces the file; one that is
shorter than the file, or unlike it, is still refused (it is more likely a fragment that lost its
place than the whole file); with markers the snippet never stands for the whole file this way."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (old file, new file, a marker)
LANGS = {
    "python": ('__version__ = "23.3.0"\n', '__version__ = "23.6.0"\n', "# ... existing code ..."),
    "javascript": ("module.exports = { version: '4.9.0' };\n", "module.exports = { version: '4.10.0' };\n",
                   "// ... existing code ..."),
    "typescript": ("export const version = '1.0.0'\n", "export const version = '1.0.6'\n",
                   "// ... existing code ..."),
    "rust": ('pub const VERSION: &str = "0.6.7";\n', 'pub const VERSION: &str = "0.6.8";\n',
             "// ... existing code ..."),
    "go": ('package version\n\nconst Version = "1.4.0"\n', 'package version\n\nconst Version = "1.5.0"\n',
           "// ... existing code ..."),
}


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_version_file_written_out_new_replaces_the_file(lang):
    old, new, _ = LANGS[lang]
    res = merge(old, new, lang)
    assert res.ok, res.reason
    assert res.text == new


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_line_unlike_the_file_is_still_refused(lang):
    old, _, _ = LANGS[lang]
    res = merge(old, "zzz_unrelated_name_qq(42);\n" if lang != "python" else "zzz_unrelated_name_qq(42)\n", lang)
    assert not res.ok
    assert "not in the file" in res.reason


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_snippet_shorter_than_the_file_is_not_the_whole_file(lang):
    old, new, _ = LANGS[lang]
    longer = old + "\n" + old.replace("23.3.0", "1").replace("4.9.0", "1").replace("1.0.0", "1") \
        .replace("0.6.7", "1").replace("1.4.0", "1").replace("ersion", "ersion2").replace("package version\n\n", "")
    res = merge(longer, new.replace("package version\n\n", ""), lang)
    assert not res.ok or res.text.count("\n") >= longer.count("\n") - 1, res.text


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_with_a_marker_the_snippet_is_not_the_whole_file(lang):
    old, new, marker = LANGS[lang]
    res = merge(old, new + marker + "\n", lang)
    assert not res.ok or res.text.count("\n") >= old.count("\n")

"""Issue 43: a new definition written before an existing one, the fragment opening with the lines
that end the one before it (`    )` and two blank lines; `Ok(PyStorage(storage))` and `}`; a test's
`  }` and `})`): those lines end every function of the file, and a region starting at an earlier
copy of them, rewriting the definition between into the new one (token by token alike), scored best.
Of the places framed alike, the best one that drops no definition the snippet never shows (nor a test
whose title it never has) is taken (icechunk's storage.py and config.rs, fast-json-stringify's tests,
fresh27: 35, 6 and 29 lost lines).  A fragment that rewrites the definition it names is unchanged."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge


def _python(name: str, extra: str) -> list[str]:
    return [f"def {name}(", "    *,", "    bucket: str,", "    prefix: str | None,", f"    {extra}: str,",
            "    access_key_id: str | None = None,", ") -> Storage:",
            f'    """Create a Storage instance that saves data in {name}.', "", "    Parameters", "    ----------",
            "    bucket: str", "        The bucket name", '    """', "    credentials = s3_credentials(",
            "        access_key_id=access_key_id,", "    )", f"    return Storage.new_{name}(",
            "        bucket=bucket,", "        prefix=prefix,", "        credentials=credentials,", "    )"]


def _rust(name: str, extra: str) -> list[str]:
    return ["    #[classmethod]", f"    pub(crate) fn new_{name}(", "        _cls: &Bound<'_, PyType>,",
            "        bucket: String,", f"        {extra}: Option<String>,", "    ) -> PyResult<Self> {",
            f"        let storage = storage::new_{name}_storage(", "            bucket,", f"            {extra},",
            "        )", "        .map_err(PyIcechunkStoreError::StorageError)?;", "",
            "        Ok(PyStorage(storage))", "    }"]


TITLES = {"s3": "reads the region", "r2": "keeps the default output", "hf": "projects the namespace"}


def _javascript(name: str, extra: str) -> list[str]:
    return [f"test('{name} {TITLES[name]}', t => {{", "  const schema = {", "    type: 'object',",
            f"    properties: {{ {extra}: {{ type: 'string' }} }}", "  }", "  for (const data of values) {",
            "    t.assert.equal(build(schema)(data), build(schema, options)(data))", "  }", "})"]


SHAPES = {
    "python": (_python, ["", ""], ["def gcs_store(", "    opts: dict[str, str] | None = None,", ") -> Config:",
                                   "    return Config(opts)"], "#", 1),
    "rust": (_rust, [""], ["    #[classmethod]", "    pub(crate) fn new_in_memory(", "        _cls: &Bound<'_, PyType>,",
                           "    ) -> PyResult<Self> {", "        Ok(PyStorage(storage::new_in_memory()))", "    }"], "//", 2),
    "javascript": (_javascript, [""], ["test('options are validated', t => {", "  t.plan(3)",
                                      "  t.assert.throws(() => build({}, { mode: 'x' }))", "})"], "//", 2),
}


def _case(lang: str, head: str = ""):
    make, gap, last, comment, keep = SHAPES[lang]
    first, second, new = make("s3", "region"), make("r2", "account_id"), make("hf", "namespace")
    pre = ["impl PyStorage {"] if lang == "rust" else []
    post = ["}"] if lang == "rust" else []
    original = pre + first + gap + second + gap + last + post
    truth = pre + first + gap + second + gap + new + gap + last + post
    mark = f"{comment} ... existing code ..."
    inner = ("    " if lang == "rust" else "") + mark
    snippet = [mark] + second[-keep:] + gap + new + gap + last[:2] + [inner]
    return "\n".join(original) + "\n", "\n".join(snippet) + "\n", "\n".join(truth) + "\n"


@pytest.mark.parametrize("lang", sorted(SHAPES))
def test_a_new_definition_before_the_next_goes_there_not_over_an_alike_one(lang):
    original, snippet, truth = _case(lang)
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == truth
    assert not r.deletions


@pytest.mark.parametrize("lang", sorted(SHAPES))
def test_the_definition_rewritten_when_the_snippet_names_it(lang):
    """The same fragment with the second definition's own first line: it is that one rewritten."""
    make, gap, last, comment, keep = SHAPES[lang]
    original, _, _ = _case(lang)
    first, new = make("s3", "region"), make("r2", "namespace")
    mark = f"{comment} ... existing code ..."
    inner = ("    " if lang == "rust" else "") + mark
    snippet = "\n".join([mark] + first[-keep:] + gap + new + gap + last[:2] + [inner]) + "\n"
    pre, post = (["impl PyStorage {"], ["}"]) if lang == "rust" else ([], [])
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    assert r.text == "\n".join(pre + first + gap + new + gap + last + post) + "\n"


def test_a_new_test_after_one_closing_line_does_not_rewrite_the_test_before():
    """Only `})` shown before the new test: no frame; the region that rewrites the test before it into
    the new one would delete a test whose title the snippet never has (lost.unshown): refused."""
    make, gap, last, comment, _ = SHAPES["javascript"]
    first, second, new = make("s3", "region"), make("r2", "account_id"), make("hf", "namespace")
    original = "\n".join(first + gap + second + gap + last) + "\n"
    snippet = "\n".join([f"{comment} ... existing code ...", "})"] + gap + new + gap + last[:2] +
                        [f"{comment} ... existing code ..."]) + "\n"
    r = merge(original, snippet, "javascript")
    if r.ok:
        assert r.text == "\n".join(first + gap + second + gap + new + gap + last) + "\n"
    else:
        assert "would delete `r2 keeps the default output`" in r.reason


def test_a_test_retitled_with_its_spelling_fixed_merges():
    """A title the snippet has only as a like one (RETITLED: a spelling fixed) is that test, retitled."""
    make, gap, last, comment, _ = SHAPES["javascript"]
    first, second = make("s3", "region"), make("r2", "account_id")
    typo = [second[0].replace("default output", "defualt output")] + second[1:]
    original = "\n".join(first + gap + typo + gap + last) + "\n"
    snippet = "\n".join([f"{comment} ... existing code ...", "  }", "})"] + gap + second[:2] +
                        [f"  {comment} ... existing code ..."]) + "\n"
    r = merge(original, snippet, "javascript")
    assert r.ok, r.reason
    assert r.text == "\n".join(first + gap + second + gap + last) + "\n"


def _pytest(name: str, pattern: str, doc: str) -> list[str]:
    return ["@pytest.mark.parametrize('as_bytes', [False, True])", f"def {name}(as_bytes):", f'    """{doc}"""', "",
            "    flags = glob.EXTMATCH | glob.FORCEUNIX", f"    pattern, hidden, visible = {pattern}", "    if as_bytes:",
            "        pattern, hidden, visible = pattern.encode(), hidden.encode(), visible.encode()", "",
            "    assert glob.globmatch(hidden, pattern, flags=flags)", "    assert glob.globmatch(visible, pattern, flags=flags)"]


def test_of_tied_places_the_one_that_deletes_no_definition():
    """wcmatch's tests (fresh28): a new test after the line that ends every test, before the next one;
    the place that rewrites the test before it scored as well as the one that adds, and the longer one
    was taken (4 lost lines)."""
    first = _pytest("test_literal", "'a.x', '.x', 'a.x'", "A literal.")
    second = _pytest("test_optional_group_literal_dot", "'?(a).hidden', '.hidden', 'a.hidden'",
                     "A literal dot after an empty group continues to match hidden names.")
    new = ["@pytest.mark.parametrize(", "    ('pattern', 'visible'),", "    [", "        ('*.env', 'a.env'),",
           "        ('!(a).env', 'b.env'),", "    ]", ")", "@pytest.mark.parametrize('as_bytes', [False, True])",
           "def test_wildcard_start(pattern, visible, as_bytes):",
           '    """A wildcard at the start of a name never matches the leading dot."""', "",
           "    flags = glob.EXTMATCH | glob.FORCEUNIX", "    hidden = '.env'", "    if as_bytes:",
           "        pattern, hidden, visible = pattern.encode(), hidden.encode(), visible.encode()", "",
           "    assert not glob.globmatch(hidden, pattern, flags=flags)",
           "    assert glob.globmatch(visible, pattern, flags=flags)"]
    last = ["@pytest.mark.parametrize('pattern', ['+(.?|*)', '*(.?|*)'])", "def test_group_loop(pattern):",
            "    assert glob.globmatch('.a.', pattern)"]
    gap = ["", ""]
    snippet = "\n".join(["# ... existing code ...", second[-1]] + gap + new + gap + last[:2] +
                        ["    # ... existing code ..."]) + "\n"
    r = merge("\n".join(first + gap + second + gap + last) + "\n", snippet, "python")
    assert r.ok, r.reason
    assert r.text == "\n".join(first + gap + second + gap + new + gap + last) + "\n"


def _rust_test(name: str, just: list[str], says: str, flag: str | None = None) -> list[str]:
    return ["#[test]", f"fn {name}() {{", "  Test::new()", "    .justfile(", '      "', *[f"        {j}" for j in just],
            '      ",', "    )", *([f'    .arg("{flag}")'] if flag else []),
            f'    .stderr_regex(concat!(r"{says}", "\\n"))', '    .stdout("foo\\n")', "    .success();", "}"]


def test_of_tied_places_all_deleting_a_definition_the_best_other_one():
    """rust-just's tests (fresh29): new tests after the `}` that ends every test, before the next one;
    the two best places, tied, each rewrote tests before it (10 lost lines): the best of the other
    places framed alike, which deletes none, is taken."""
    old = [_rust_test("shell", ["recipe:", "   echo 'one'"], "one", "--timestamp"),
           _rust_test("basic", ["recipe:", "   echo 'zero'"], "zero", "--timestamp"),
           _rust_test("quiet", ["recipe:", "   @echo 'two'"], "two", "--timestamp"),
           _rust_test("script", ["recipe:", "   #!/bin/sh", "   echo 'one'"], "recipe", "--timestamp")]
    new = [_rust_test("attribute_script", ["[timestamp]", "recipe:", "  #!/bin/sh", "  echo foo"], "recipe"),
           _rust_test("attribute", ["[timestamp]", "recipe:", "  echo foo"], "foo"),
           _rust_test("attribute_format", ["[timestamp('%H')]", "recipe:", "  echo foo"], "foo3")]
    last = ["#[test]", "fn format_string() {", "  Test::new()", "    .justfile(", '      "', "        recipe:",
            "          echo foo", '      ",', "    )", '    .arg("--timestamp-format")', "    .success();", "}"]
    spaced = lambda tests: [line for test in tests for line in test + [""]]
    snippet = "\n".join(["// ... existing code ...", "}", ""] + spaced(new) + last[:4] +
                        ["      // ... existing code ..."]) + "\n"
    r = merge("\n".join(["use super::*;", ""] + spaced(old) + last) + "\n", snippet, "rust")
    assert r.ok, r.reason
    assert r.text == "\n".join(["use super::*;", ""] + spaced(old) + spaced(new) + last) + "\n"

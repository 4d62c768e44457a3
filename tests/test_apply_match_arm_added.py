"""Issue 43: a Rust match arm added after an alike one is not that arm rewritten.  A region that drops
an arm whose variant the snippet never names gets no credit for new lines "rewriting" it, as with a
switch's case label or an object's key (fresh33's prek builtin_hooks/mod.rs: a new
`BuiltinHooks::ReplacePattern => BuiltinHook {` arm shown from the `..Default::default()` that ends
the arm before it, refused as adding or rewriting); and a best place that drops such an arm gives way
to the place with its last line starting at a later copy of its first line, which drops nothing
(fresh34's zizmor main.rs: a new `CollectionError::AmbiguousRemoteRef { slug } => {` arm read as
`RemoteWithoutWorkflows` rewritten, its closing lines found again at the new arm's end: 7 lines lost)."""
from __future__ import annotations

from redraft.engine.apply import merge


def _arm(variant: str, hook_id: str, field: str) -> str:
    return f"""            Hooks::{variant} => Hook {{
                id: "{hook_id}".to_string(),
                options: Options {{
                    {field},
                    ..Default::default()
                }},
            }},
"""


ARMS = [_arm("CheckYaml", "check-yaml", "types: Some(tags::YAML)"),
        _arm("CheckToml", "check-toml", 'files: Some("*.toml".into())'),
        _arm("PrettyJson", "pretty-json", 'args: vec!["--indent".into()]'),
        _arm("Trailing", "trailing", "stages: Some(vec![Stage::PreCommit])"),
        _arm("MixedEnding", "mixed-ending", "priority: Some(3)")]
FILE = "impl Hooks {\n    pub fn hook(&self) -> Hook {\n        match self {\n" + "".join(ARMS) + \
    "        }\n    }\n}\n"
NEW = _arm("ReplacePattern", "replace-pattern", 'description: Some("Replaces matches.".into())')


def test_a_new_arm_goes_after_the_alike_arm_whose_end_it_shows():
    """The fragment starts with the closing lines every arm ends with, and the new arm ends with them
    too: read from the arm before, it would rewrite `PrettyJson`, which the snippet never names."""
    snippet = "// ... existing code ...\n" + "".join(ARMS[2].splitlines(keepends=True)[-3:]) + NEW + \
        ARMS[3].splitlines(keepends=True)[0] + "                // ... existing code ...\n"
    result = merge(FILE, snippet, "rust")
    assert result.ok, result.reason
    assert result.text == FILE.replace(ARMS[3], NEW + ARMS[3])


def test_an_arm_the_snippet_names_may_be_rewritten():
    """Shown by its variant, `PrettyJson`'s arm is rewritten in place."""
    snippet = "// ... existing code ...\n            Hooks::PrettyJson => Hook {\n" + \
        '                id: "pretty-json".to_string(),\n                options: Options {\n' + \
        '                    args: vec!["--indent=2".into()],\n                    ..Default::default()\n' + \
        "                },\n            },\n" + ARMS[3].splitlines(keepends=True)[0] + \
        "                // ... existing code ...\n"
    result = merge(FILE, snippet, "rust")
    assert result.ok, result.reason
    assert result.text == FILE.replace('"--indent"', '"--indent=2"')

"""The switches that turn syntax awareness off for measurement: the `syntax` setting, Request.syntax
through the eval harness (`--no-syntax-aware`), and the grammar registry."""
from __future__ import annotations

from types import SimpleNamespace

from redraft.evals.evaluate import EngineCompleter, EvalConfig, _parser, summarize
from redraft.engine.settings import Settings, parse_settings
from redraft.engine.syntax import language_for, language_for_uri


def test_syntax_setting():
    assert Settings().syntax is True
    s, problems, ignored = parse_settings({"redraft": {"syntax": False}})
    assert s.syntax is False and not problems and not ignored
    s, problems, _ = parse_settings({"syntax": "no"}, s)
    assert s.syntax is True and problems  # a bad value: reported, the default used


def test_no_syntax_aware_flag_reaches_the_request():
    args = _parser().parse_args(["humaneval-infill", "--no-syntax-aware", "--no-syntax"])
    assert args.no_syntax_aware and args.no_syntax
    assert not _parser().parse_args(["humaneval-infill"]).no_syntax_aware
    seen = []
    engine = SimpleNamespace(complete=lambda req: seen.append(req.syntax), forget=lambda uri: None)
    task = SimpleNamespace(text="x = \n", offset=4, task_id="T/0")
    EngineCompleter(engine, "low", syntax_aware=False)(task)
    EngineCompleter(engine, "low")(task)
    assert seen == [False, True]
    assert summarize([], EvalConfig(baseline="empty", syntax_aware=False))["syntax_aware"] is False


def test_grammar_registry():
    for lid in ("python", "javascript", "javascriptreact", "typescript", "typescriptreact", "rust", "go"):
        assert language_for(lid) is not None, lid
    assert language_for("plaintext") is None and language_for(None) is None
    assert language_for_uri("file:///src/main.rs").name == "rust"
    assert language_for_uri("/x/app.tsx").name == "typescriptreact"
    assert language_for_uri("notes.md") is None

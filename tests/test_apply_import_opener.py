"""Issue 43: a new import written between two multi-line imports, the snippet starting at the last
lines of the one before (a real release: @mistralai/mistralai's request models, `ReasoningEffort,`
/ `ReasoningEffort$outboundSchema,` / `} from "./reasoningeffort.js";`, the new `import {...} from
"./requestedservicetier.js";`, then `import {` and the first lines of the next import).  An import
line just above the region that the fragment shows again is moved, not copied (plan._moved_imports);
the first line of an import that goes on (`import {`, `from a import (`, `use a::{`) is not one: the
fragment shows it for another import, and the one above the region lost its first line."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# per language: (an import of `names` from `mod`, comment)
LANGS = {
    "typescript": (lambda mod, names: ["import {"] + [f"  {n}," for n in names] + [f'}} from "./{mod}.js";'], "//"),
    "javascript": (lambda mod, names: ["import {"] + [f"  {n}," for n in names] + [f'}} from "./{mod}.js";'], "//"),
    "python": (lambda mod, names: [f"from .{mod} import ("] + [f"    {n}," for n in names] + [")"], "#"),
    "rust": (lambda mod, names: [f"use crate::{mod}::{{"] + [f"    {n}," for n in names] + ["};"], "//"),
}
BODY = {"typescript": ["", "export const ALL = [Prediction, ReasoningEffort, ResponseFormat];"],
        "javascript": ["", "export const ALL = [Prediction, ReasoningEffort, ResponseFormat];"],
        "python": ["", "", "ALL = [Prediction, ReasoningEffort, ResponseFormat]"],
        "rust": ["", "pub const ALL: [Kind; 3] = [Prediction, ReasoningEffort, ResponseFormat];"]}


def _imports(lang: str, new: bool) -> list[list[str]]:
    imp = LANGS[lang][0]
    out = [imp("prediction", ["Prediction", "PredictionOutbound"]),
           imp("reasoningeffort", ["ReasoningEffort", "ReasoningEffortSchema"]),
           imp("responseformat", ["ResponseFormat", "ResponseFormatOutbound", "ResponseFormatSchema"])]
    if new:
        out.insert(2, imp("servicetier", ["ServiceTier", "ServiceTierSchema"]))
    return out


def _file(lang: str, new: bool) -> str:
    return "\n".join([l for i in _imports(lang, new) for l in i] + BODY[lang]) + "\n"


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_import_between_multi_line_imports_keeps_the_one_above_whole(lang):
    c = LANGS[lang][1]
    imports = _imports(lang, True)
    snippet = [f"{c} ... existing code ..."] + imports[1][1:] + imports[2] + imports[3][:3] + \
        [f"  {c} ... existing code ..."]
    r = merge(_file(lang, False), "\n".join(snippet) + "\n", lang)
    assert r.ok, r.reason
    assert r.text == _file(lang, True)

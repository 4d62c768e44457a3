"""Fill-in-the-middle prompt templates: redraft renders the prompt itself for servers that take a
plain `prompt` (no GPU serving engine does FIM for diffusion models: SGLang drops `suffix` without
an autoregressive coder's template, vLLM rejects it), as llm-ls, Tabby (`prompt_template`), Continue
and Zed's OpenAI-compatible edit-prediction provider do.

Presets (the same strings as Zed's `format_fim_prompt` and Tabby's documented templates, and the
formats redraft's own HTTP API recognises in lsp_server/http/formats.py):

  qwen       <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>     Qwen2.5-Coder, Qwen3-Coder
  codegemma  <|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>     CodeGemma
  starcoder  <fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>           StarCoder, StarCoder2, SantaCoder
  deepseek   <｜fim▁begin｜>{prefix}<｜fim▁hole｜>{suffix}<｜fim▁end｜>       DeepSeek-Coder (fullwidth bars, U+2581)
  codellama  <PRE> {prefix} <SUF>{suffix} <MID>                             Code Llama
  codestral  [SUFFIX]{suffix}[PREFIX]{prefix}                               Codestral (suffix first)

A custom template is any string with `{prefix}` (and usually `{suffix}`); `{filename}` and
`{language}` are filled too. Rendering is one pass over the template, so braces or placeholder
names inside the code are never substituted. Each preset brings the stop strings that end its
model's middle; `clean` cuts an answer at the first FIM control token (servers that do not treat
them as special hand them back as text).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PRESETS", "Template", "check_template", "render", "template_stops", "clean"]


@dataclass(frozen=True)
class Template:
    text: str
    stops: tuple[str, ...]


PRESETS: dict[str, Template] = {
    "qwen": Template("<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
                     ("<|endoftext|>", "<|fim_pad|>", "<|file_sep|>", "<|repo_name|>", "<|im_end|>")),
    "codegemma": Template("<|fim_prefix|>{prefix}<|fim_suffix|>{suffix}<|fim_middle|>",
                          ("<|file_separator|>", "<|endoftext|>", "<end_of_turn>")),
    "starcoder": Template("<fim_prefix>{prefix}<fim_suffix>{suffix}<fim_middle>",
                          ("<|endoftext|>", "<file_sep>", "<fim_prefix>")),
    "deepseek": Template("<\uff5cfim\u2581begin\uff5c>{prefix}<\uff5cfim\u2581hole\uff5c>{suffix}<\uff5cfim\u2581end\uff5c>",
                         ("<\uff5cend\u2581of\u2581sentence\uff5c>", "<|EOT|>", "<\uff5cfim\u2581begin\uff5c>")),
    "codellama": Template("<PRE> {prefix} <SUF>{suffix} <MID>", ("<EOT>", "<PRE>", "<SUF>")),
    "codestral": Template("[SUFFIX]{suffix}[PREFIX]{prefix}", ("</s>", "[PREFIX]", "[SUFFIX]")),
}

# control tokens that never belong in code (whatever the family): an answer is cut at the first one.
# Codestral's `[PREFIX]`, `</s>` and Code Llama's `<PRE>` could be code (a list, HTML): they cut only
# answers to their own template.
_CONTROL = tuple(t for t in sorted({t for p in PRESETS.values() for t in p.stops} | {
    "<|fim_prefix|>", "<|fim_suffix|>", "<|fim_middle|>", "<fim_suffix>", "<fim_middle>",
    "<\uff5cfim\u2581hole\uff5c>", "<\uff5cfim\u2581end\uff5c>"}) if t.startswith(("<|", "<fim", "<\uff5c")))
_PLACEHOLDER = re.compile(r"\{(prefix|suffix|filename|language)\}")


def check_template(value: str) -> str:
    """A preset's name (lowercased) or a custom template string; ValueError otherwise."""
    name = value.strip().lower()
    if name in PRESETS:
        return name
    if "{prefix}" not in value:
        raise ValueError(f"expected one of {', '.join(PRESETS)} or a string with {{prefix}} and {{suffix}}")
    if len(value) > 2000:
        raise ValueError("a template string has at most 2000 characters")
    return value


def render(template: str, prefix: str, suffix: str, filename: str = "", language: str = "") -> str:
    """The prompt for `template` (a preset's name or a custom string): one pass over the template."""
    text = PRESETS[template].text if template in PRESETS else template
    values = {"prefix": prefix, "suffix": suffix, "filename": filename, "language": language}
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], text)


def template_stops(template: str | None) -> tuple[str, ...]:
    return PRESETS[template].stops if template in PRESETS else ()


def clean(text: str, template: str | None = None) -> str:
    """The answer up to the first FIM control token of any family, or a stop of its own template."""
    cut = len(text)
    for tok in _CONTROL + template_stops(template):
        at = text.find(tok, 0, cut)
        if at >= 0:
            cut = at
    return text[:cut]

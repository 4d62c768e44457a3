"""What differs between the open-weight families once their weights are loaded (model/hub.py): the
tokenizer and its special tokens, the infill layout each was trained with, the filler that ends an
infill, and DreamOn's expand/delete tokens. The hub sampler (model/hub_sampler.py) and the pipeline
only talk to `Adapter`.

Layouts (facts in ../shared/notes/diffusion-coders.md sections 3.4 and 4): these models infill in
place, the masks between the prefix and the suffix (no fill-in-the-middle sentinels):
* dream (Dream, Dream-Coder, DiffuCoder, DreamOn): [<|beginoftext|>] prefix <mask>*n suffix <|endoftext|>
  (DreamOn's infill prompt); the canvas ends with fillers (<|endoftext|>, <|dlm_pad|>, ...).
* llada: [<|startoftext|>] prefix <mask>*n suffix; fillers <|endoftext|> and <|eot_id|>.
DreamOn's tokenizer has <|expand|>: a masked position predicted as expand becomes two masks, one
predicted as the filler is deleted, so the canvas grows and shrinks to the length the model wants.

Design decision: every filler the family knows counts as one. Their probabilities are summed into
the first (`fold`), so the sampler's yes/no filler decision (model/sampler.py `pick`) sees the whole
mass of "the infill ends here" however the family spells it.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch
from tokenizers import Tokenizer as HFTokenizer

from redraft.model.hub import MASK_NAMES, Family, HubError, mask_candidates

FILLERS = ("<|endoftext|>", "<|dlm_pad|>", "<|im_end|>", "<|eot_id|>", "<|eos|>", "</s>")
BOS = ("<|beginoftext|>", "<|startoftext|>")
EXPAND = "<|expand|>"


def _ids(value) -> list[int]:
    return [v for v in (value if isinstance(value, list) else [value]) if isinstance(v, int)]


class HubTokenizer:
    """A hub tokenizer.json behind the interface the pipeline uses (model/tokenizer.py's): text in a
    document is never read as a special token, decode drops special tokens."""

    def __init__(self, path: Path, family: Family, config: dict) -> None:
        if not path.is_file():
            raise HubError(f"{path.parent}: no {path.name}")
        try:
            self.hf = HFTokenizer.from_file(str(path))
        except Exception as e:  # noqa: BLE001 - the library's message, one line
            raise HubError(f"{path}: not a tokenizer ({e})".split("\n")[0]) from None
        self.hf.encode_special_tokens = True   # a literal "<|mask|>" in a file stays text
        added = self.hf.get_added_tokens_decoder()
        self.special_ids = frozenset(i for i, t in added.items() if t.special)
        masks = mask_candidates(path.parent)     # looked up in the tokenizer already loaded
        named = {t: self.hf.token_to_id(t) for t in (*FILLERS, *BOS, *masks, EXPAND)}
        mask = next((named[t] for t in masks if named[t] is not None), None)
        want = config.get("mask_token_id")
        if mask is not None and isinstance(want, int) and want != mask:
            raise HubError(f"{path.parent}: the tokenizer's mask token is {mask} but config.json says {want}: "
                           "they do not belong together")
        if mask is None:
            mask = want if isinstance(want, int) else None
        if mask is None:
            raise HubError(f"{path.parent}: no mask token (neither {' nor '.join(MASK_NAMES)} in the tokenizer nor "
                           "mask_token_id in config.json)")
        self.mask_id = mask
        fillers = [named[t] for t in FILLERS if named[t] is not None]
        fillers += [i for i in _ids(config.get("eos_token_id")) + _ids(config.get("pad_token_id")) if i not in fillers]
        self.expand_id = named[EXPAND] if family.name == "dream" else None
        fillers = [i for i in fillers if i not in (self.mask_id, self.expand_id)]
        if not fillers:
            raise HubError(f"{path.parent}: no end-of-text token ({', '.join(FILLERS[:2])}, or eos_token_id in "
                           "config.json) to end an infill with")
        self.filler_ids = fillers
        self.eom_id = fillers[0]
        self.bos_id = next((named[t] for t in BOS if named[t] is not None), None)
        self.special_ids |= {self.mask_id, *fillers} | ({self.bos_id} if self.bos_id is not None else set())

    @property
    def vocab_size(self) -> int:
        return self.hf.get_vocab_size(with_added_tokens=True)

    def encode(self, text: str) -> list[int]:
        return self.hf.encode(text, add_special_tokens=False).ids

    def decode(self, ids) -> str:
        return self.hf.decode([i for i in ids if i not in self.special_ids], skip_special_tokens=False)


@dataclass
class Adapter:
    """One family's conventions over a loaded model's tokenizer."""
    family: Family
    tok: HubTokenizer
    rows: int                      # the model's vocabulary rows (>= the tokenizer's)

    @property
    def shift(self) -> bool:
        return self.family.shift

    @property
    def variable_length(self) -> bool:
        return self.tok.expand_id is not None

    def layout(self, prefix: list[int], canvas: list[int], suffix: list[int]) -> tuple[list[int], int]:
        """(the whole sequence, where the canvas starts in it)."""
        head = ([self.tok.bos_id] if self.tok.bos_id is not None else []) + list(prefix)
        tail = list(suffix) + ([self.tok.eom_id] if self.family.name == "dream" else [])
        return head + list(canvas) + tail, len(head)

    def bias(self, device, expand: bool) -> torch.Tensor:
        """(rows,) additive logit bias: -inf for what a canvas may never hold (special tokens but the
        filler, and expand unless `expand`; rows past the tokenizer's vocabulary)."""
        b = torch.zeros(self.rows, device=device)
        banned = sorted(i for i in self.tok.special_ids if i < self.rows and i != self.tok.eom_id)
        b[banned] = float("-inf")
        b[self.tok.vocab_size:] = float("-inf")
        if expand and self.tok.expand_id is not None:
            b[self.tok.expand_id] = 0.0
        return b

    def fold(self, logits: torch.Tensor) -> torch.Tensor:
        """(M, rows) float32 -> the same with every filler's probability summed into eom_id's column."""
        others = [i for i in self.tok.filler_ids[1:] if i < logits.shape[-1]]
        if others:
            cols = [self.tok.eom_id, *others]
            logits[:, self.tok.eom_id] = torch.logsumexp(logits[:, cols], dim=-1)
            logits[:, others] = float("-inf")
        return logits


def open_model(directory, device: str = "cpu", dtype: str | None = None):
    """(HubModel, Adapter) of a hub-format directory; HubError with one line when it cannot serve."""
    from redraft.model.hub import load, recognise
    fam, cfg = recognise(directory)
    tok = HubTokenizer(Path(directory) / "tokenizer.json", fam, cfg)   # before the weights: fails fast
    hm = load(directory, device=device, dtype=dtype)
    hm.mask_id = tok.mask_id
    return hm, Adapter(fam, tok, hm.model.lm_head.weight.shape[0])


def is_hub_dir(directory) -> bool:
    """A hub-format directory (config.json with a `model_type`) rather than a redraft checkpoint."""
    import json
    try:
        cfg = json.loads((Path(directory) / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(cfg, dict) and "model_type" in cfg

"""Byte-level BPE tokenizer (HF `tokenizers`), trained on the project's own corpus.

Special tokens take the first ids. They are never produced from user text: `encode` treats a
literal "<|mask|>" in a file as ordinary bytes, so a document cannot inject control tokens, and
decode(encode(s)) == s for every string.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Iterable, Iterator

from tokenizers import Regex, Tokenizer as HFTokenizer, decoders, models, pre_tokenizers, trainers

SPECIAL_TOKENS = [
    "<|pad|>",          # batch padding (never attended to)
    "<|mask|>",         # absorbing state of the diffusion
    "<|eom|>",          # end-of-middle filler: pads the canvas after the infill
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|file_sep|>",     # separates files / starts a plain sequence
    "<|edit_history|>", # next-edit prediction (reserved): start of the recent-edits block
    "<|edit_before|>",  # reserved: text before an edit
    "<|edit_after|>",   # reserved: text after an edit
    "<|edit_region|>",  # reserved: start of the region to rewrite
    "<|edit_region_end|>",
    "<|cursor|>",       # reserved: cursor position inside an edit region
]

# Pre-tokenization for code: words, numbers in groups of up to 3 digits, runs of punctuation,
# newlines together with the following indentation, and other whitespace runs.
_SPLIT = (
    r"""'(?:[sdmt]|ll|ve|re)| ?\p{L}[\p{L}\p{N}_]*| ?\p{N}{1,3}| ?[^\s\p{L}\p{N}]+|\n[ \t]*|[ \t]+(?![^\s])|\s"""
)


class Tokenizer:
    def __init__(self, hf: HFTokenizer):
        self.hf = hf
        self.hf.encode_special_tokens = True  # literal "<|mask|>" in text stays text
        ids = {t: hf.token_to_id(t) for t in SPECIAL_TOKENS}
        missing = [t for t, i in ids.items() if i is None]
        if missing:
            raise ValueError(f"tokenizer lacks special tokens {missing}")
        self.special = ids
        self.pad_id = ids["<|pad|>"]
        self.mask_id = ids["<|mask|>"]
        self.eom_id = ids["<|eom|>"]
        self.prefix_id = ids["<|fim_prefix|>"]
        self.suffix_id = ids["<|fim_suffix|>"]
        self.middle_id = ids["<|fim_middle|>"]
        self.file_sep_id = ids["<|file_sep|>"]
        self.special_ids = frozenset(ids.values())

    @property
    def vocab_size(self) -> int:
        return self.hf.get_vocab_size()

    def encode(self, text: str) -> list[int]:
        return self.hf.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        return [e.ids for e in self.hf.encode_batch(texts, add_special_tokens=False)]

    def decode(self, ids: Iterable[int]) -> str:
        """Decode ordinary tokens; special tokens are dropped."""
        return self.hf.decode([i for i in ids if i not in self.special_ids], skip_special_tokens=False)

    def save(self, path: str | Path) -> None:
        self.hf.save(str(path))

    @classmethod
    def load(cls, path: str | Path) -> "Tokenizer":
        path = Path(path)
        if path.is_dir():
            path = path / "tokenizer.json"
        if not path.exists():
            raise FileNotFoundError(f"no tokenizer at {path}")
        return cls(HFTokenizer.from_file(str(path)))


def build_hf_tokenizer() -> HFTokenizer:
    tok = HFTokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(_SPLIT), behavior="isolated"),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    tok.decoder = decoders.ByteLevel()
    return tok


def train_tokenizer(texts: Iterator[str], vocab_size: int) -> Tokenizer:
    tok = build_hf_tokenizer()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),  # every byte is a token: any text encodes
        min_frequency=2,
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return Tokenizer(tok)


def train_tokenizer_languages(by_language: dict[str, list[str]], vocab_size: int, sample_mb: float = 6.0,
                              seed: int = 0) -> Tokenizer:
    """A tokenizer for several languages: trained on an equal sample (`sample_mb` of each language's
    files, drawn by `seed`), so that the largest language does not take the whole vocabulary."""
    mix = [t for lang in sorted(by_language) for t in language_sample(by_language[lang], sample_mb, seed)]
    random.Random(seed).shuffle(mix)
    return train_tokenizer(iter(mix), vocab_size)


def language_sample(texts: list[str], mb: float, seed: int) -> list[str]:
    """Files drawn at random (by `seed`) until they hold `mb` megabytes."""
    rng = random.Random(seed)
    texts = texts[:]
    rng.shuffle(texts)
    out, size = [], 0
    for t in texts:
        if size >= mb * 1e6:
            break
        out.append(t)
        size += len(t.encode())
    return out

"""Model configuration: one dataclass, a few named presets.

The shipped default is sized for CPU latency: a single-line infill must run a handful of
forward passes over ~32 canvas tokens in well under 100 ms on two cores, and the model has to be
trainable on those two cores within one working session (bf16 on AMX).
"""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass


@dataclass
class ModelConfig:
    vocab_size: int = 8192      # byte-level BPE trained on the corpus (model/tokenizer.py)
    d_model: int = 320          # residual width
    n_layers: int = 6
    n_heads: int = 5            # query heads; head_dim = d_model // n_heads
    n_kv_heads: int = 5         # < n_heads turns on grouped-query attention
    ffn_mult: float = 8 / 3     # SwiGLU hidden = ffn_mult * d_model, rounded up to a multiple of 64
    rope_theta: float = 10000.0
    max_seq_len: int = 384      # sequence length it was trained at (context + canvas)
    norm_eps: float = 1e-5
    qk_norm: bool = True        # RMSNorm on queries and keys: steadier training at high learning rates
    next_edit: str = ""         # the next-edit canvas format it was trained on (model/edits.py FORMAT); "" none
    snippet_tokens: int = 0     # trained with another file's snippet before the context (model/crossfile.py): its share; 0 none

    @property
    def head_dim(self) -> int:
        return self.d_model // self.n_heads

    @property
    def ffn_dim(self) -> int:
        return int(-(-int(self.ffn_mult * self.d_model) // 64) * 64)

    def num_params(self) -> int:
        d, f, hd = self.d_model, self.ffn_dim, self.head_dim
        attn = d * (self.n_heads * hd) + 2 * d * (self.n_kv_heads * hd) + (self.n_heads * hd) * d
        mlp = 3 * d * f
        norms = 2 * d + (2 * hd if self.qk_norm else 0)
        return self.vocab_size * d + self.n_layers * (attn + mlp + norms) + d

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, d: dict) -> "ModelConfig":
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown model config keys: {sorted(unknown)}")
        return cls(**d)


PRESETS: dict[str, ModelConfig] = {
    # unit tests: builds and runs in milliseconds
    "tiny": ModelConfig(vocab_size=512, d_model=64, n_layers=2, n_heads=4, n_kv_heads=2, max_seq_len=256),
    # the shipped default (CPU-trained): ~10M parameters
    "default": ModelConfig(),
    # the largest shape that should still meet the CPU latency target when trained on the lent
    # accelerator (~22M parameters): a 4-pass single-line infill measured 1.28x the default's time on
    # the CPU (bench/RESULTS.md, "Model size vs CPU latency"); deeper or wider shapes were slower still
    "accel": ModelConfig(d_model=512, n_layers=6, n_heads=8, n_kv_heads=4, max_seq_len=512),
    # a larger model for accelerator training and GPU serving (~82M parameters; ~3.8x the default's CPU time)
    "base": ModelConfig(d_model=768, n_layers=12, n_heads=12, n_kv_heads=4, max_seq_len=2048),
}


def preset(name: str) -> ModelConfig:
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose from {sorted(PRESETS)}")
    return dataclasses.replace(PRESETS[name])

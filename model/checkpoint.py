"""Checkpoints: a directory with model.safetensors, config.json and tokenizer.json.

Loading never touches the network: a checkpoint is a local directory, the shipped default lives in
model/weights/ inside the package.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from .config import ModelConfig
from .tokenizer import Tokenizer
from .transformer import Transformer

DEFAULT_DIR = Path(__file__).resolve().parent / "weights"


@dataclass
class Loaded:
    model: Transformer
    tokenizer: Tokenizer
    config: ModelConfig
    path: Path


class CheckpointError(RuntimeError):
    pass


def save(model: Transformer, tokenizer: Tokenizer, out_dir: str | Path, dtype: torch.dtype = torch.bfloat16,
         extra: dict | None = None) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().to(dtype).contiguous() for k, v in model.state_dict().items()}
    tmp = out / "model.safetensors.tmp"
    save_file(state, str(tmp), metadata={"format": "pt"})
    tmp.replace(out / "model.safetensors")  # atomic: a crash mid-save keeps the old weights
    (out / "config.json").write_text(model.cfg.to_json())
    tokenizer.save(out / "tokenizer.json")
    if extra:
        (out / "train_info.json").write_text(json.dumps(extra, indent=2))
    return out


def load(path: str | Path | None = None, device: str = "cpu", dtype: torch.dtype | None = None) -> Loaded:
    """Load a checkpoint directory (default: the shipped model). dtype None keeps the stored one."""
    p = Path(path) if path else DEFAULT_DIR
    for name in ("model.safetensors", "config.json", "tokenizer.json"):
        if not (p / name).is_file():
            raise CheckpointError(f"{p} is not a redraft checkpoint: {name} is missing")
    try:
        cfg = ModelConfig.from_dict(json.loads((p / "config.json").read_text()))
    except (ValueError, TypeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"bad config.json in {p}: {e}") from e
    tok = Tokenizer.load(p / "tokenizer.json")
    if tok.vocab_size > cfg.vocab_size:
        raise CheckpointError(f"tokenizer has {tok.vocab_size} tokens, model only {cfg.vocab_size}")
    state = load_file(str(p / "model.safetensors"), device=device)
    with torch.device("meta"):
        model = Transformer(cfg)
    try:
        model.load_state_dict(state, strict=True, assign=True)
    except RuntimeError as e:
        raise CheckpointError(f"weights in {p} do not match config.json: {e}") from e
    if dtype is not None:
        model.to(dtype)
    model.eval().requires_grad_(False)
    return Loaded(model, tok, cfg, p)

"""Checkpoints: a directory with model.safetensors, config.json and tokenizer.json.

Loading never touches the network: a checkpoint is a local directory, the shipped default lives in
model/weights/ inside the package.

Design decision: weights larger than `SHARD_BYTES` are written as shards
(model-00001-of-00003.safetensors, ...) with a model.safetensors.index.json naming the file of every
tensor (the layout Hugging Face uses). A model trained on the lent accelerator comes back through a
channel that returns files of at most 16 MiB, and a repository is happier with files that size too.
The index is written after its shards and the files it replaces are removed after it, so a save that
dies half way leaves either the old checkpoint or the new one; a shard that is missing or does not
match config.json is a CheckpointError, never a silently half-loaded model.

Design decision: a checkpoint may be stored in int8 (`save(..., dtype=torch.int8)`, `redraft
average OUT CKPT --store int8`): every matrix as int8 with one bfloat16 scale per row (symmetric,
the row's largest magnitude maps to 127; the tied embedding's rows are tokens), vectors in
bfloat16. It halves the shipped file (a model twice the default's size travels and lives in git at
the default's 20 MB); `load` turns it back into bfloat16, so inference is unchanged but for the
rounding.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from redraft.model.config import ModelConfig
from redraft.model.tokenizer import Tokenizer
from redraft.model.transformer import Transformer

DEFAULT_DIR = Path(__file__).resolve().parent / "weights"
WEIGHTS = "model.safetensors"
INDEX = "model.safetensors.index.json"
SHARD_BYTES = 15 * 2**20   # largest single weights file save() writes (one bigger tensor gets a shard of its own)
SCALE = ".int8_scale"       # the key suffix of an int8 matrix's per-row scales


@dataclass
class Loaded:
    model: Transformer
    tokenizer: Tokenizer
    config: ModelConfig
    path: Path


class CheckpointError(RuntimeError):
    pass


def _shard(state: dict[str, torch.Tensor], limit: int) -> list[dict[str, torch.Tensor]]:
    """Tensors in state order, packed greedily into groups of at most `limit` bytes."""
    groups: list[dict[str, torch.Tensor]] = [{}]
    size = 0
    for k, v in state.items():
        n = v.numel() * v.element_size()
        if groups[-1] and size + n > limit:
            groups.append({})
            size = 0
        groups[-1][k] = v
        size += n
    return groups


def _write(path: Path, state: dict[str, torch.Tensor] | None = None, text: str | None = None) -> None:
    """Weights (`state`) or a text file, written beside `path` and renamed over it: a crash mid-save
    keeps the old file."""
    tmp = path.with_name(path.name + ".tmp")
    if state is not None:
        save_file(state, str(tmp), metadata={"format": "pt"})
    else:
        tmp.write_text(text)
    tmp.replace(path)


def save(model: Transformer, tokenizer: Tokenizer, out_dir: str | Path, dtype: torch.dtype = torch.bfloat16,
         extra: dict | None = None, max_shard_bytes: int | None = SHARD_BYTES) -> Path:
    """Write the checkpoint directory; weights over `max_shard_bytes` (None: no limit) as shards."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if dtype == torch.int8:
        state = quantize(model.state_dict())
    else:
        state = {k: v.detach().to(dtype).contiguous() for k, v in model.state_dict().items()}
    total = sum(v.numel() * v.element_size() for v in state.values())
    old = set(out.glob("model-*-of-*.safetensors"))
    if max_shard_bytes is None or total <= max_shard_bytes:
        _write(out / WEIGHTS, state)
        keep = {out / WEIGHTS}
        (out / INDEX).unlink(missing_ok=True)
    else:
        groups = _shard(state, max_shard_bytes)
        names = [f"model-{i + 1:05d}-of-{len(groups):05d}.safetensors" for i in range(len(groups))]
        for name, group in zip(names, groups):
            _write(out / name, group)
        index = {"metadata": {"total_size": total}, "weight_map": {k: n for n, g in zip(names, groups) for k in g}}
        _write(out / INDEX, text=json.dumps(index, indent=2))
        keep = {out / n for n in names}
        (out / WEIGHTS).unlink(missing_ok=True)
    for stale in old - keep:
        stale.unlink(missing_ok=True)
    (out / "config.json").write_text(model.cfg.to_json())
    tokenizer.save(out / "tokenizer.json")
    if extra:
        (out / "train_info.json").write_text(json.dumps(extra, indent=2))
    return out


def quantize(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Matrices as int8 with a bfloat16 scale per row (key + SCALE); vectors in bfloat16."""
    out = {}
    for k, v in state.items():
        v = v.detach().float()
        if v.dim() != 2:
            out[k] = v.to(torch.bfloat16).contiguous()
            continue
        scale = (v.abs().amax(dim=1) / 127).clamp_min(1e-12).to(torch.bfloat16)
        out[k] = torch.round(v / scale.float()[:, None]).clamp_(-127, 127).to(torch.int8).contiguous()
        out[k + SCALE] = scale.contiguous()
    return out


def dequantize(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The inverse of `quantize` (bfloat16 matrices); a state without int8 matrices is returned as it is."""
    scales = {k[: -len(SCALE)]: state[k] for k in state if k.endswith(SCALE)}
    if not scales:
        return state
    out = {}
    for k, v in state.items():
        if k.endswith(SCALE):
            if k[: -len(SCALE)] not in state:
                raise CheckpointError(f"int8 scales {k} without their matrix")
            continue
        if v.dtype == torch.int8:
            if k not in scales or scales[k].shape != (v.shape[0],):
                raise CheckpointError(f"int8 matrix {k} without one scale per row")
            v = (v.float() * scales[k].float()[:, None]).to(torch.bfloat16)
        out[k] = v
    return out


def weight_files(path: str | Path) -> list[Path]:
    """The weights files of a checkpoint directory: its shards (by the index) or model.safetensors."""
    p = Path(path)
    if (p / INDEX).is_file():
        try:
            files = sorted(set(json.loads((p / INDEX).read_text())["weight_map"].values()))
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as e:
            raise CheckpointError(f"bad {INDEX} in {p}: {e}") from e
        for f in files:
            if Path(f).name != f or not (p / f).is_file():
                raise CheckpointError(f"{p} is not a complete redraft checkpoint: shard {f} is missing")
        return [p / f for f in files]
    if not (p / WEIGHTS).is_file():
        raise CheckpointError(f"{p} is not a redraft checkpoint: {WEIGHTS} is missing")
    return [p / WEIGHTS]


def load(path: str | Path | None = None, device: str = "cpu", dtype: torch.dtype | None = None) -> Loaded:
    """Load a checkpoint directory (default: the shipped model). dtype None keeps the stored one."""
    p = Path(path) if path else DEFAULT_DIR
    files = weight_files(p)
    for name in ("config.json", "tokenizer.json"):
        if not (p / name).is_file():
            raise CheckpointError(f"{p} is not a redraft checkpoint: {name} is missing")
    try:
        cfg = ModelConfig.from_dict(json.loads((p / "config.json").read_text()))
    except (ValueError, TypeError, json.JSONDecodeError) as e:
        raise CheckpointError(f"bad config.json in {p}: {e}") from e
    tok = Tokenizer.load(p / "tokenizer.json")
    if tok.vocab_size > cfg.vocab_size:
        raise CheckpointError(f"tokenizer has {tok.vocab_size} tokens, model only {cfg.vocab_size}")
    state = {}
    for f in files:
        state.update(load_file(str(f), device=device))
    state = dequantize(state)
    # built on the CPU and then given the loaded tensors (assign): a random init costs ~0.1 s for the
    # default, where building under torch.device("meta") routes the init through torch._refs and
    # imports torch._dynamo (~0.85 s of every server start)
    model = Transformer(cfg)
    try:
        model.load_state_dict(state, strict=True, assign=True)
    except RuntimeError as e:
        raise CheckpointError(f"weights in {p} do not match config.json: {e}") from e
    if dtype is not None:
        model.to(dtype)
    model.eval().requires_grad_(False)
    return Loaded(model, tok, cfg, p)


def average(paths: list[str | Path], weights: list[float] | None = None) -> Loaded:
    """The weighted mean of checkpoints of one architecture and tokenizer (a "model soup"), computed
    in float32 and kept in the first checkpoint's dtype. Design decision: averaging the weights of
    training stages that continue one another combines them at no inference cost, unlike an ensemble
    that runs two models (model/weights/README.md). Different configs or tokenizers are a
    CheckpointError."""
    if not paths:
        raise CheckpointError("average needs at least one checkpoint")
    weights = [1.0] * len(paths) if weights is None else list(weights)
    if len(weights) != len(paths) or any(w < 0 for w in weights) or sum(weights) <= 0:
        raise CheckpointError(f"need one non-negative weight per checkpoint ({len(paths)}), not summing to 0: {weights}")
    first = load(paths[0])
    vocab = (first.path / "tokenizer.json").read_bytes()
    total = sum(weights)
    acc = {k: v.float() * (weights[0] / total) for k, v in first.model.state_dict().items()}
    for p, w in zip(paths[1:], weights[1:]):
        other = load(p)
        if other.config != first.config:
            raise CheckpointError(f"{p} has another architecture than {paths[0]} (config.json differs)")
        if (other.path / "tokenizer.json").read_bytes() != vocab:
            raise CheckpointError(f"{p} has another tokenizer than {paths[0]}")
        for k, v in other.model.state_dict().items():
            acc[k] += v.float() * (w / total)
    first.model.load_state_dict(acc)  # copied into the first model's tensors: its dtype, still frozen
    return first

"""Open-weight diffusion coders from a local hub-format directory (issue 26, first part): the family
recognised from config.json, the weights loaded into the stock `transformers` classes (no code from
the model directory is ever run), bidirectional attention, the family's logit alignment.

Families (facts checked with tiny random models, ../shared/notes/diffusion-coders.md section 4):
* dream: `model_type` "Dream" (Dream-v0, Dream-Coder, DiffuCoder, DreamOn): Qwen2 weights under the
  same key names -> `Qwen2ForCausalLM`; logits shifted (position i predicts token i+1); `<|mask|>`
  151666, DreamOn's expand token 151667.
* llada: `model_type` "llada" (OLMo-style names) -> `LlamaForCausalLM` after renaming keys and
  config fields; no shift; `<|mdm_mask|>` 126336 (its tokenizer leaves `mask_token` unset).
* open-dcoder: `model_type` "qwen2" (Open-dCoder: Qwen2.5-Coder weights trained as a diffusion
  model) -> `Qwen2ForCausalLM`, shifted. A plain Qwen2 is an autoregressive model under the same
  type; what tells them apart is the mask token its tokenizer defines, without which it is refused.
Attention is made bidirectional with an all-zero 4-D additive mask (transformers 4.57, SDPA/eager).

`load(dir)` -> HubModel, whose `logits(ids)` gives, at every position, the distribution of the token
at that position (the shift undone).  Everything that goes wrong is a HubError with one line.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["HubError", "Family", "FAMILIES", "recognise", "MASK_NAMES", "mask_candidates", "mask_token", "estimate_bytes", "load", "HubModel"]


class HubError(Exception):
    """A model directory redraft cannot use; the message says why in one line."""


@dataclass(frozen=True)
class Family:
    name: str
    model_types: tuple[str, ...]
    arch: str                 # "qwen2" | "llama": the stock transformers class
    shift: bool               # logits[i] predict token i+1
    mask_id: int              # default mask token id (config's mask_token_id wins)
    expand_id: int | None = None


FAMILIES = [
    Family("dream", ("Dream", "dream"), "qwen2", True, 151666, 151667),
    Family("llada", ("llada", "LLaDA"), "llama", False, 126336),
    Family("open-dcoder", ("qwen2",), "qwen2", True, -1),     # the mask id comes from the tokenizer
]

# LLaDA (OLMo block names) -> transformers Llama names
_LLADA_KEYS = [
    (r"^model\.transformer\.wte\.weight$", "model.embed_tokens.weight"),
    (r"^model\.transformer\.ln_f\.weight$", "model.norm.weight"),
    (r"^model\.transformer\.ff_out\.weight$", "lm_head.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.q_proj\.weight$", r"model.layers.\1.self_attn.q_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.k_proj\.weight$", r"model.layers.\1.self_attn.k_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.v_proj\.weight$", r"model.layers.\1.self_attn.v_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.attn_out\.weight$", r"model.layers.\1.self_attn.o_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.ff_proj\.weight$", r"model.layers.\1.mlp.gate_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.up_proj\.weight$", r"model.layers.\1.mlp.up_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.ff_out\.weight$", r"model.layers.\1.mlp.down_proj.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.attn_norm\.weight$", r"model.layers.\1.input_layernorm.weight"),
    (r"^model\.transformer\.blocks\.(\d+)\.ff_norm\.weight$", r"model.layers.\1.post_attention_layernorm.weight"),
]


def _read_json(path: Path) -> dict:
    try:
        out = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HubError(f"{path.parent}: no {path.name}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise HubError(f"{path}: not readable JSON ({e})".split("\n")[0]) from None
    if not isinstance(out, dict):
        raise HubError(f"{path}: not a JSON object")
    return out


def recognise(directory: str | os.PathLike) -> tuple[Family, dict]:
    """(the family, config.json) of a hub-format model directory."""
    d = Path(directory)
    if not d.is_dir():
        raise HubError(f"{d}: no such directory")
    cfg = _read_json(d / "config.json")
    mt = cfg.get("model_type")
    for fam in FAMILIES:
        if mt in fam.model_types:
            if fam.name == "open-dcoder" and mask_token(d) is None:
                raise HubError(f"{d}: a {mt} model whose tokenizer has no mask token is autoregressive, not a "
                               "diffusion coder (Open-dCoder's tokenizer defines <|mask|>)")
            return fam, cfg
    known = ", ".join(t for f in FAMILIES for t in f.model_types[:1])
    if cfg.get("auto_map"):
        raise HubError(f"{d}: model_type {mt!r} works only with the directory's own code (auto_map), which "
                       f"redraft does not run; supported: {known}")
    raise HubError(f"{d}: unknown model_type {mt!r}; supported: {known}")


MASK_NAMES = ("<|mask|>", "<|mdm_mask|>")   # the families' own mask tokens


def mask_candidates(d: Path) -> list[str]:
    """Texts the mask token may have, most likely first: the one tokenizer_config.json names, then
    the families' own."""
    try:
        named = json.loads((d / "tokenizer_config.json").read_text(encoding="utf-8")).get("mask_token")
    except (OSError, ValueError, AttributeError):
        named = None
    if isinstance(named, dict):
        named = named.get("content")
    return list(dict.fromkeys(([named] if isinstance(named, str) else []) + list(MASK_NAMES)))


def mask_token(d: Path) -> str | None:
    """The first of mask_candidates(d) that tokenizer.json defines; None when it has none."""
    try:
        vocab = json.loads((d / "tokenizer.json").read_text(encoding="utf-8"))
        known = {t.get("content") for t in vocab.get("added_tokens", [])} | set(vocab.get("model", {}).get("vocab", {}))
    except (OSError, ValueError, AttributeError):
        return None
    return next((t for t in mask_candidates(d) if t in known), None)


def _transformers_config(fam: Family, cfg: dict):
    from transformers import LlamaConfig, Qwen2Config
    try:
        if fam.arch == "qwen2":
            return Qwen2Config(vocab_size=cfg["vocab_size"], hidden_size=cfg["hidden_size"],
                               intermediate_size=cfg["intermediate_size"], num_hidden_layers=cfg["num_hidden_layers"],
                               num_attention_heads=cfg["num_attention_heads"],
                               num_key_value_heads=cfg.get("num_key_value_heads", cfg["num_attention_heads"]),
                               max_position_embeddings=cfg.get("max_position_embeddings", 32768),
                               rms_norm_eps=cfg.get("rms_norm_eps", 1e-6), rope_theta=cfg.get("rope_theta", 10000.0),
                               tie_word_embeddings=cfg.get("tie_word_embeddings", False), attn_implementation="sdpa")
        heads = cfg["n_heads"]
        return LlamaConfig(vocab_size=cfg.get("embedding_size") or cfg["vocab_size"], hidden_size=cfg["d_model"],
                           intermediate_size=cfg["mlp_hidden_size"], num_hidden_layers=cfg["n_layers"],
                           num_attention_heads=heads, num_key_value_heads=cfg.get("n_kv_heads") or heads,
                           max_position_embeddings=cfg.get("max_sequence_length", 4096),
                           rms_norm_eps=cfg.get("rms_norm_eps", 1e-5), rope_theta=cfg.get("rope_theta", 500000.0),
                           tie_word_embeddings=bool(cfg.get("weight_tying", False)), attention_bias=False,
                           mlp_bias=False, attn_implementation="sdpa")
    except KeyError as e:
        raise HubError(f"config.json lacks {e.args[0]!r}, which a {fam.name} model needs") from None


def estimate_bytes(fam: Family, cfg: dict, bytes_per_param: int = 2) -> int:
    """Weights in memory: parameters x bytes per parameter (the activations of a short infill are
    small beside them)."""
    tc = _transformers_config(fam, cfg)
    h, f, n, v = tc.hidden_size, tc.intermediate_size, tc.num_hidden_layers, tc.vocab_size
    kv = h // tc.num_attention_heads * tc.num_key_value_heads
    layer = h * h * 2 + h * kv * 2 + 3 * h * f + 2 * h
    params = n * layer + v * h * (1 if tc.tie_word_embeddings else 2) + h
    return params * bytes_per_param


def _available(device: str) -> int:
    if device.startswith("cuda"):
        import torch
        free, _ = torch.cuda.mem_get_info(torch.device(device))
        return free
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) * 1024
    return 1 << 62


def _weight_files(d: Path) -> list[Path]:
    index = d / "model.safetensors.index.json"
    if index.exists():
        files = sorted(set(_read_json(index).get("weight_map", {}).values()))
        if not files:
            raise HubError(f"{index}: no weight_map")
        missing = [f for f in files if not (d / f).is_file()]
        if missing:
            raise HubError(f"{d}: shard {missing[0]} named by the index is missing")
        return [d / f for f in files]
    single = d / "model.safetensors"
    if single.is_file():
        return [single]
    if list(d.glob("*.bin")) or list(d.glob("*.pt")):
        raise HubError(f"{d}: only pickle weights (.bin/.pt), which redraft does not load (they can run code); "
                       "convert them to safetensors")
    raise HubError(f"{d}: no model.safetensors or model.safetensors.index.json")


def _rename(fam: Family, key: str) -> str:
    if fam.name != "llada":
        return key
    for pat, rep in _LLADA_KEYS:
        new, n = re.subn(pat, rep, key)
        if n:
            return new
    return key


def _check_tokenizer(d: Path, vocab: int) -> None:
    path = d / "tokenizer.json"
    if not path.exists():
        raise HubError(f"{d}: no tokenizer.json")
    from tokenizers import Tokenizer
    try:
        tok = Tokenizer.from_file(str(path))
    except Exception as e:  # noqa: BLE001 - the library's message, one line
        raise HubError(f"{path}: not a tokenizer ({e})".split("\n")[0]) from None
    if tok.get_vocab_size(with_added_tokens=True) > vocab:
        raise HubError(f"{path}: the tokenizer has {tok.get_vocab_size(with_added_tokens=True)} tokens but the "
                       f"weights only {vocab} embeddings: they do not belong together")


class HubModel:
    """A loaded hub model: `logits(ids)` over a bidirectional sequence, aligned to positions."""

    def __init__(self, family: Family, config: dict, model, mask_id: int) -> None:
        self.family, self.config, self.model, self.mask_id = family, config, model, mask_id

    def logits(self, ids):
        import torch
        b, n = ids.shape
        dtype = next(self.model.parameters()).dtype
        mask = torch.zeros(b, 1, n, n, dtype=dtype, device=ids.device)   # every position sees every other
        with torch.no_grad():
            out = self.model(input_ids=ids, attention_mask=mask).logits
        if self.family.shift:                 # logits[i] predict token i+1: put them at i+1
            out = torch.cat([out[:, :1], out[:, :-1]], dim=1)
        return out


def load(directory: str | os.PathLike, device: str = "cpu", dtype: str | None = None) -> HubModel:
    import torch
    from safetensors import SafetensorError, safe_open
    d = Path(directory)
    fam, cfg = recognise(d)
    tcfg = _transformers_config(fam, cfg)
    dt = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[
        dtype or ("bfloat16" if device.startswith("cuda") else "float32")]
    need = estimate_bytes(fam, cfg, torch.finfo(dt).bits // 8)
    have = _available(device)
    if need > have:
        raise HubError(f"{d}: the weights need about {need / 2**30:.1f} GiB in {str(dt).split('.')[-1]} but "
                       f"{device} has {have / 2**30:.1f} GiB available")
    _check_tokenizer(d, tcfg.vocab_size)
    from transformers import LlamaForCausalLM, Qwen2ForCausalLM
    cls = Qwen2ForCausalLM if fam.arch == "qwen2" else LlamaForCausalLM
    with torch.device("meta"):
        model = cls(tcfg)
    state = {}
    for f in _weight_files(d):
        try:
            with safe_open(str(f), framework="pt", device="cpu") as fh:   # memory-mapped
                for k in fh.keys():
                    state[_rename(fam, k)] = fh.get_tensor(k).to(dt)
        except (SafetensorError, OSError) as e:
            raise HubError(f"{f}: corrupt or unreadable safetensors ({e})".split("\n")[0]) from None
    if tcfg.tie_word_embeddings and "lm_head.weight" not in state and "model.embed_tokens.weight" in state:
        state["lm_head.weight"] = state["model.embed_tokens.weight"]
    want = set(model.state_dict())
    missing, extra = sorted(want - set(state)), sorted(set(state) - want)
    if missing or extra:
        raise HubError(f"{d}: weights do not fit a {fam.name} model: "
                       + (f"missing {missing[0]}" + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
                          if missing else f"unexpected {extra[0]}"))
    try:
        model.load_state_dict(state, assign=True, strict=True)
    except RuntimeError as e:
        raise HubError(f"{d}: weights do not fit the config ({e})".split("\n")[0]) from None
    # rotary embeddings' inv_freq is a buffer built at construction (on the meta device): rebuild it
    for mod in model.modules():
        if hasattr(mod, "inv_freq") and getattr(mod.inv_freq, "is_meta", False):
            inv, scale = mod.rope_init_fn(mod.config, torch.device("cpu"))
            mod.register_buffer("inv_freq", inv, persistent=False)
            mod.original_inv_freq = inv
            mod.attention_scaling = scale
    model = model.to(device).eval()
    mask_id = cfg.get("mask_token_id", fam.mask_id)
    return HubModel(fam, cfg, model, mask_id)

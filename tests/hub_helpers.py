"""Tiny random checkpoints in each open-weight family's hub format, written by the tests (issue 26):
config.json with the family's fields, weights under its key names in safetensors (optionally
sharded), and a small byte-level BPE tokenizer.json with the family's special tokens appended after
the ordinary vocabulary, as in the real ones (the model's rows outnumber the tokenizer's, as Qwen's do)."""
from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import save_file
from tokenizers import AddedToken

from redraft.model.tokenizer import build_hf_tokenizer

VOCAB = 300          # the model's embedding rows
SPECIALS = {
    "dream": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|beginoftext|>", "<|mask|>"],
    "dreamon": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|beginoftext|>", "<|mask|>", "<|expand|>"],
    "llada": ["<|startoftext|>", "<|endoftext|>", "<|eot_id|>", "<|mdm_mask|>"],
    "open-dcoder": ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|mask|>"],
}
CODE = '''def add(a, b):
    return a + b


def greet(name):
    message = "Hello, " + name
    return message


class Box:
    def __init__(self, width, height):
        self.width = width
        self.height = height

    def area(self):
        return self.width * self.height
'''


def write_tokenizer(d: Path, kind: str) -> dict[str, int]:
    """A byte-level BPE tokenizer of about 280 tokens; returns the special tokens' ids."""
    from tokenizers import pre_tokenizers, trainers
    hf = build_hf_tokenizer()
    trainer = trainers.BpeTrainer(vocab_size=280 - len(SPECIALS[kind]), show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    hf.train_from_iterator([CODE] * 4, trainer=trainer)
    hf.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIALS[kind]])
    hf.save(str(d / "tokenizer.json"))
    return {t: hf.token_to_id(t) for t in SPECIALS[kind]}


def _save(d: Path, state: dict[str, torch.Tensor], shards: int) -> None:
    state = {k: v.contiguous() for k, v in state.items()}
    if shards == 1:
        save_file(state, str(d / "model.safetensors"))
        return
    keys = sorted(state)
    weight_map = {}
    for i in range(shards):
        name = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
        save_file({k: state[k] for k in keys[i::shards]}, str(d / name))
        weight_map |= {k: name for k in keys[i::shards]}
    (d / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))


def dream_dir(tmp: Path, shards: int = 1, kind: str = "dream") -> tuple[Path, torch.nn.Module]:
    """Dream's layout (Dream-Coder, DiffuCoder; kind "dreamon": DreamOn, whose tokenizer adds
    <|expand|>): model_type "Dream", Qwen2 fields and key names, its own code named in auto_map.
    kind "open-dcoder": the same weights under model_type "qwen2", a tokenizer_config.json naming
    the mask token, no auto_map, no bos."""
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(0)
    ref = Qwen2ForCausalLM(Qwen2Config(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6,
                                       rope_theta=1e6, tie_word_embeddings=False)).eval()
    d = tmp / kind
    d.mkdir()
    ids = write_tokenizer(d, kind)
    shape = {"vocab_size": VOCAB, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
             "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-6, "rope_theta": 1e6,
             "max_position_embeddings": 1024, "tie_word_embeddings": False, "eos_token_id": ids["<|endoftext|>"]}
    if kind == "open-dcoder":
        (d / "config.json").write_text(json.dumps({"model_type": "qwen2", "architectures": ["Qwen2ForCausalLM"],
                                                   **shape}))
        (d / "tokenizer_config.json").write_text(json.dumps({"mask_token": "<|mask|>", "eos_token": "<|endoftext|>"}))
    else:
        (d / "config.json").write_text(json.dumps({
            "model_type": "Dream", "architectures": ["DreamModel"],
            "auto_map": {"AutoConfig": "configuration_dream.DreamConfig", "AutoModel": "modeling_dream.DreamModel"},
            **shape, "mask_token_id": ids["<|mask|>"], "bos_token_id": ids["<|beginoftext|>"],
            "pad_token_id": ids["<|endoftext|>"]}))
    _save(d, ref.state_dict(), shards)
    return d, ref


LLADA_NAMES = {"model.embed_tokens.weight": "model.transformer.wte.weight", "model.norm.weight": "model.transformer.ln_f.weight",
               "lm_head.weight": "model.transformer.ff_out.weight"}
LLADA_LAYER = {"self_attn.q_proj": "q_proj", "self_attn.k_proj": "k_proj", "self_attn.v_proj": "v_proj",
               "self_attn.o_proj": "attn_out", "mlp.gate_proj": "ff_proj", "mlp.up_proj": "up_proj",
               "mlp.down_proj": "ff_out", "input_layernorm": "attn_norm", "post_attention_layernorm": "ff_norm"}


def llada_dir(tmp: Path) -> tuple[Path, torch.nn.Module]:
    """LLaDA's layout: model_type "llada", OLMo config fields and block key names."""
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(1)
    ref = LlamaForCausalLM(LlamaConfig(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=4, rms_norm_eps=1e-5,
                                       rope_theta=500000.0, tie_word_embeddings=False)).eval()
    state = {}
    for k, v in ref.state_dict().items():
        if k in LLADA_NAMES:
            state[LLADA_NAMES[k]] = v
            continue
        _, _, n, *rest = k.split(".")
        state[f"model.transformer.blocks.{n}.{LLADA_LAYER['.'.join(rest[:-1])]}.weight"] = v
    d = tmp / "llada"
    d.mkdir()
    ids = write_tokenizer(d, "llada")
    (d / "config.json").write_text(json.dumps({
        "model_type": "llada", "architectures": ["LLaDAModelLM"], "auto_map": {"AutoModel": "modeling_llada.LLaDAModelLM"},
        "d_model": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 4, "mlp_hidden_size": 96, "vocab_size": VOCAB,
        "embedding_size": VOCAB, "rope_theta": 500000.0, "rms_norm_eps": 1e-5, "max_sequence_length": 1024,
        "weight_tying": False, "block_type": "llama", "mask_token_id": ids["<|mdm_mask|>"],
        "bos_token_id": ids["<|startoftext|>"], "eos_token_id": ids["<|endoftext|>"]}))
    _save(d, state, 1)
    return d, ref

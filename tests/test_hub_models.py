"""Bring your own model (model/hub.py): tiny random checkpoints written here in each family's hub
format (config fields, weight key names, a small tokenizer) load, and their logits are those of
transformers' own classes run bidirectionally (with the shift where the family has it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from safetensors.torch import save_file
from tokenizers import Tokenizer, models, pre_tokenizers

from model.hub import HubError, estimate_bytes, load, recognise

VOCAB = 300


def tokenizer(path: Path, n: int = VOCAB) -> None:
    vocab = {f"t{i}": i for i in range(n - 1)} | {"<|mask|>": n - 1}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path / "tokenizer.json"))


def dream_dir(tmp: Path, shards: int = 1) -> tuple[Path, torch.nn.Module]:
    """Dream's layout: model_type "Dream", Qwen2 fields and key names, its own code in auto_map."""
    from transformers import Qwen2Config, Qwen2ForCausalLM
    torch.manual_seed(0)
    ref = Qwen2ForCausalLM(Qwen2Config(vocab_size=VOCAB, hidden_size=64, intermediate_size=96, num_hidden_layers=2,
                                       num_attention_heads=4, num_key_value_heads=2, rms_norm_eps=1e-6,
                                       rope_theta=1e6, tie_word_embeddings=False)).eval()
    d = tmp / "dream"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({
        "model_type": "Dream", "architectures": ["DreamModel"],
        "auto_map": {"AutoConfig": "configuration_dream.DreamConfig", "AutoModel": "modeling_dream.DreamModel"},
        "vocab_size": VOCAB, "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-6, "rope_theta": 1e6,
        "max_position_embeddings": 256, "tie_word_embeddings": False, "mask_token_id": VOCAB - 1}))
    state = {k: v.contiguous() for k, v in ref.state_dict().items()}
    keys = sorted(state)
    if shards == 1:
        save_file(state, str(d / "model.safetensors"))
    else:
        parts = [keys[i::shards] for i in range(shards)]
        weight_map = {}
        for i, part in enumerate(parts):
            name = f"model-{i + 1:05d}-of-{shards:05d}.safetensors"
            save_file({k: state[k] for k in part}, str(d / name))
            weight_map |= {k: name for k in part}
        (d / "model.safetensors.index.json").write_text(json.dumps({"metadata": {}, "weight_map": weight_map}))
    tokenizer(d)
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
            state[LLADA_NAMES[k]] = v.contiguous()
            continue
        _, _, n, *rest = k.split(".")
        sub = ".".join(rest[:-1])
        state[f"model.transformer.blocks.{n}.{LLADA_LAYER[sub]}.weight"] = v.contiguous()
    d = tmp / "llada"
    d.mkdir()
    (d / "config.json").write_text(json.dumps({
        "model_type": "llada", "architectures": ["LLaDAModelLM"], "auto_map": {"AutoModel": "modeling_llada.LLaDAModelLM"},
        "d_model": 64, "n_layers": 2, "n_heads": 4, "n_kv_heads": 4, "mlp_hidden_size": 96, "vocab_size": VOCAB,
        "embedding_size": VOCAB, "rope_theta": 500000.0, "rms_norm_eps": 1e-5, "max_sequence_length": 256,
        "weight_tying": False, "block_type": "llama", "mask_token_id": VOCAB - 1}))
    save_file(state, str(d / "model.safetensors"))
    tokenizer(d)
    return d, ref


def reference(ref, ids: torch.Tensor, shift: bool) -> torch.Tensor:
    n = ids.shape[1]
    with torch.no_grad():
        out = ref(input_ids=ids, attention_mask=torch.zeros(1, 1, n, n)).logits
    return torch.cat([out[:, :1], out[:, :-1]], dim=1) if shift else out


@pytest.mark.parametrize("family,make,shards", [("dream", dream_dir, 1), ("dream", dream_dir, 3),
                                                 ("llada", llada_dir, 1)], ids=["dream", "dream-sharded", "llada"])
def test_loads_and_matches_transformers_bidirectionally(tmp_path, family, make, shards):
    d, ref = make(tmp_path, shards) if shards > 1 else make(tmp_path)
    assert recognise(d)[0].name == family
    m = load(d)
    ids = torch.randint(0, VOCAB, (1, 12), generator=torch.Generator().manual_seed(3))
    got = m.logits(ids)
    want = reference(ref, ids, family == "dream")
    assert torch.allclose(got, want, atol=1e-5), (got - want).abs().max()
    assert m.mask_id == VOCAB - 1
    later = ids.clone()
    later[0, -1] = (later[0, -1] + 1) % VOCAB        # bidirectional: the last token changes the first logits
    assert not torch.allclose(m.logits(later)[0, 1], got[0, 1])


def test_errors_are_one_line_and_name_the_cause(tmp_path):
    with pytest.raises(HubError, match="no such directory"):
        load(tmp_path / "nope")
    d, _ = dream_dir(tmp_path)
    cfg = json.loads((d / "config.json").read_text())
    (d / "config.json").write_text(json.dumps({**cfg, "model_type": "mystery"}))
    with pytest.raises(HubError, match="own code .auto_map., which redraft does not run"):
        load(d)
    (d / "config.json").write_text(json.dumps({k: v for k, v in cfg.items() if k != "auto_map"} | {"model_type": "gpt9"}))
    with pytest.raises(HubError, match="unknown model_type 'gpt9'; supported: Dream, llada"):
        load(d)
    (d / "config.json").write_text(json.dumps(cfg))
    (d / "model.safetensors").write_bytes(b"\x00" * 64)
    with pytest.raises(HubError, match="corrupt or unreadable safetensors"):
        load(d)
    (d / "model.safetensors").unlink()
    (d / "pytorch_model.bin").write_bytes(b"x")
    with pytest.raises(HubError, match="only pickle weights"):
        load(d)


def test_a_tokenizer_from_another_model_is_refused(tmp_path):
    d, _ = dream_dir(tmp_path)
    tokenizer(d, n=VOCAB * 4)
    with pytest.raises(HubError, match="do not belong together"):
        load(d)


def test_a_model_too_large_for_the_memory_is_refused_before_loading(tmp_path):
    d, _ = dream_dir(tmp_path)
    cfg = json.loads((d / "config.json").read_text())
    huge = {**cfg, "hidden_size": 16384, "intermediate_size": 65536, "num_hidden_layers": 400,
            "num_attention_heads": 128, "num_key_value_heads": 8}
    (d / "config.json").write_text(json.dumps(huge))
    fam, _ = recognise(d)
    assert estimate_bytes(fam, huge, 4) > 1e12
    with pytest.raises(HubError, match=r"need about \d+\.\d GiB in float32 but cpu has"):
        load(d)

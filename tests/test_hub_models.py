"""Bring your own model (model/hub.py): tiny random checkpoints written here in each family's hub
format (config fields, weight key names, a small tokenizer) load, and their logits are those of
transformers' own classes run bidirectionally (with the shift where the family has it)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch
from tokenizers import Tokenizer, models, pre_tokenizers

from hub_helpers import VOCAB, dream_dir, llada_dir
from redraft.model.hub import HubError, estimate_bytes, load, recognise


def tokenizer(path: Path, n: int) -> None:
    """A word-level tokenizer of n tokens (bigger than the fixtures' models)."""
    vocab = {f"t{i}": i for i in range(n - 1)} | {"<|mask|>": n - 1}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="t0"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(path / "tokenizer.json"))


def reference(ref, ids: torch.Tensor, shift: bool) -> torch.Tensor:
    n = ids.shape[1]
    with torch.no_grad():
        out = ref(input_ids=ids, attention_mask=torch.zeros(1, 1, n, n)).logits
    return torch.cat([out[:, :1], out[:, :-1]], dim=1) if shift else out


def open_dcoder_dir(tmp: Path):
    return dream_dir(tmp, kind="open-dcoder")


@pytest.mark.parametrize("family,make,shards", [("dream", dream_dir, 1), ("dream", dream_dir, 3),
                                                 ("llada", llada_dir, 1), ("open-dcoder", open_dcoder_dir, 1)],
                         ids=["dream", "dream-sharded", "llada", "open-dcoder"])
def test_loads_and_matches_transformers_bidirectionally(tmp_path, family, make, shards):
    d, ref = make(tmp_path, shards) if shards > 1 else make(tmp_path)
    assert recognise(d)[0].name == family
    m = load(d)
    ids = torch.randint(0, VOCAB, (1, 12), generator=torch.Generator().manual_seed(3))
    got = m.logits(ids)
    want = reference(ref, ids, family != "llada")
    assert torch.allclose(got, want, atol=1e-5), (got - want).abs().max()
    assert m.mask_id == json.loads((d / "config.json").read_text()).get("mask_token_id", -1)
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

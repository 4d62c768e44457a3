"""Checkpoint save/load round trip; the shipped default loads with the network unreachable."""
import socket

import pytest
import torch

from model import checkpoint
from model.config import preset
from model.transformer import Transformer


def test_round_trip(tmp_path, shipped):
    torch.manual_seed(3)
    cfg = preset("tiny")
    cfg.vocab_size = shipped.tokenizer.vocab_size
    m = Transformer(cfg).eval()
    checkpoint.save(m, shipped.tokenizer, tmp_path, dtype=torch.float32)
    back = checkpoint.load(tmp_path)
    assert back.config == cfg
    x = torch.randint(0, cfg.vocab_size, (2, 9))
    pos = torch.arange(9).expand(2, 9)
    assert torch.equal(m(x, pos)[0], back.model(x, pos)[0])
    assert back.tokenizer.encode("x = 1\n") == shipped.tokenizer.encode("x = 1\n")


def test_bad_checkpoint_dirs_give_clear_errors(tmp_path):
    with pytest.raises(checkpoint.CheckpointError, match="model.safetensors is missing"):
        checkpoint.load(tmp_path)
    src = checkpoint.DEFAULT_DIR
    for name in ("model.safetensors", "tokenizer.json"):
        (tmp_path / name).write_bytes((src / name).read_bytes())
    (tmp_path / "config.json").write_text('{"d_model": 64, "bogus": 1}')
    with pytest.raises(checkpoint.CheckpointError, match="bogus"):
        checkpoint.load(tmp_path)
    (tmp_path / "config.json").write_text('{"d_model": 64}')
    with pytest.raises(checkpoint.CheckpointError, match="do not match"):
        checkpoint.load(tmp_path)


def test_shipped_default_loads_offline(monkeypatch):
    def no_network(*a, **k):
        raise AssertionError("tried to open a network connection")
    monkeypatch.setattr(socket, "socket", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    loaded = checkpoint.load()
    assert loaded.path == checkpoint.DEFAULT_DIR
    n = sum(p.numel() for p in loaded.model.parameters())
    assert n == loaded.config.num_params() and n > 1_000_000
    h, _ = loaded.model(torch.tensor([[5, 6, 7]]), torch.arange(3)[None])
    assert torch.isfinite(h.float()).all()

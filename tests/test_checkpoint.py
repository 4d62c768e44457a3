"""Checkpoint save/load round trip; the shipped default loads with the network unreachable."""
import socket

import pytest
import torch

from redraft.model import checkpoint
from redraft.model.config import preset
from redraft.model.transformer import Transformer


def _tiny(shipped, seed=3):
    torch.manual_seed(seed)
    cfg = preset("tiny")
    cfg.vocab_size = shipped.tokenizer.vocab_size
    return Transformer(cfg).eval()


def _same_outputs(a, b):
    x = torch.randint(0, a.cfg.vocab_size, (2, 9), generator=torch.Generator().manual_seed(0))
    pos = torch.arange(9).expand(2, 9)
    return torch.equal(a(x, pos)[0], b(x, pos)[0])


def test_round_trip(tmp_path, shipped):
    m = _tiny(shipped)
    checkpoint.save(m, shipped.tokenizer, tmp_path, dtype=torch.float32)
    back = checkpoint.load(tmp_path)
    assert back.config == m.cfg
    assert _same_outputs(m, back.model)
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


def test_large_weights_are_sharded_and_load_back(tmp_path, shipped):
    m = _tiny(shipped)
    total = sum(v.numel() * 4 for v in m.state_dict().values())
    limit = total // 20  # the embedding alone is most of it: a shard of its own, the rest split further
    checkpoint.save(m, shipped.tokenizer, tmp_path, dtype=torch.float32, max_shard_bytes=limit)
    shards = sorted(tmp_path.glob("model-*-of-*.safetensors"))
    assert len(shards) >= 3 and not (tmp_path / checkpoint.WEIGHTS).exists()
    biggest = max(v.numel() * 4 for v in m.state_dict().values())
    assert all(f.stat().st_size <= max(limit, biggest) + 64 * 1024 for f in shards)  # + the safetensors header
    assert checkpoint.weight_files(tmp_path) == shards
    assert _same_outputs(m, checkpoint.load(tmp_path).model)

    # saved again small: one file, and the shards and their index are gone (nothing stale is loaded)
    m2 = _tiny(shipped, seed=4)
    checkpoint.save(m2, shipped.tokenizer, tmp_path, dtype=torch.float32, max_shard_bytes=None)
    assert sorted(p.name for p in tmp_path.glob("model*")) == [checkpoint.WEIGHTS]
    assert _same_outputs(m2, checkpoint.load(tmp_path).model)


def test_missing_or_bad_shard_is_a_clear_error(tmp_path, shipped):
    m = _tiny(shipped)
    checkpoint.save(m, shipped.tokenizer, tmp_path, dtype=torch.float32, max_shard_bytes=20_000)
    shards = sorted(tmp_path.glob("model-*-of-*.safetensors"))
    shards[-1].unlink()
    with pytest.raises(checkpoint.CheckpointError, match=f"shard {shards[-1].name} is missing"):
        checkpoint.load(tmp_path)
    (tmp_path / checkpoint.INDEX).write_text('{"weight_map": {"x": "../elsewhere.safetensors"}}')
    with pytest.raises(checkpoint.CheckpointError, match="is missing"):
        checkpoint.load(tmp_path)
    (tmp_path / checkpoint.INDEX).write_text("{not json")
    with pytest.raises(checkpoint.CheckpointError, match="bad model.safetensors.index.json"):
        checkpoint.load(tmp_path)


def test_average_is_the_weighted_mean_and_refuses_mismatches(tmp_path, shipped):
    a, b = _tiny(shipped, seed=3), _tiny(shipped, seed=4)
    checkpoint.save(a, shipped.tokenizer, tmp_path / "a", dtype=torch.float32)
    checkpoint.save(b, shipped.tokenizer, tmp_path / "b", dtype=torch.float32)
    mean = checkpoint.average([tmp_path / "a", tmp_path / "b"], [1.0, 3.0]).model
    for k, v in mean.state_dict().items():
        want = 0.25 * a.state_dict()[k] + 0.75 * b.state_dict()[k]
        assert v.dtype == torch.float32 and torch.allclose(v, want, atol=1e-6), k
    assert not torch.equal(mean.state_dict()["tok_emb.weight"], a.state_dict()["tok_emb.weight"])

    # through the console script: equal weights by default, written as a loadable checkpoint
    from redraft.main import main
    assert main(["average", str(tmp_path / "m"), str(tmp_path / "a"), str(tmp_path / "b")]) == 0
    back = checkpoint.load(tmp_path / "m").model
    assert torch.allclose(back.state_dict()["tok_emb.weight"],
                          (a.state_dict()["tok_emb.weight"] + b.state_dict()["tok_emb.weight"]) / 2, atol=1e-6)

    # another architecture, a bad weight list, OUT among the inputs: clear errors, nothing written
    cfg = preset("tiny")
    cfg.vocab_size, cfg.n_layers = shipped.tokenizer.vocab_size, cfg.n_layers + 1
    checkpoint.save(Transformer(cfg), shipped.tokenizer, tmp_path / "c", dtype=torch.float32)
    with pytest.raises(checkpoint.CheckpointError, match="another architecture"):
        checkpoint.average([tmp_path / "a", tmp_path / "c"])
    with pytest.raises(checkpoint.CheckpointError, match="one non-negative weight per checkpoint"):
        checkpoint.average([tmp_path / "a", tmp_path / "b"], [1.0])
    assert main(["average", str(tmp_path / "x"), str(tmp_path / "a"), str(tmp_path / "c")]) == 2
    assert main(["average", str(tmp_path / "a"), str(tmp_path / "a"), str(tmp_path / "b")]) == 2
    assert not (tmp_path / "x").exists()
    assert _same_outputs(a, checkpoint.load(tmp_path / "a").model)


def test_int8_storage_halves_the_file_and_loads_back_within_rounding(tmp_path, shipped):
    """`--store int8`: every matrix int8 with a scale per row; loads as bfloat16, each weight within
    half a step of its row's scale (plus bfloat16's own rounding), at about half the file size."""
    m = _tiny(shipped)
    checkpoint.save(m, shipped.tokenizer, tmp_path / "bf16")
    checkpoint.save(m, shipped.tokenizer, tmp_path / "int8", dtype=torch.int8)
    size = {d: (tmp_path / d / checkpoint.WEIGHTS).stat().st_size for d in ("bf16", "int8")}
    assert size["int8"] < 0.6 * size["bf16"]
    back = checkpoint.load(tmp_path / "int8")
    assert back.config == m.cfg
    for name, w in m.state_dict().items():
        got = back.model.state_dict()[name]
        assert got.dtype == torch.bfloat16 and got.shape == w.shape
        if w.dim() == 2:
            step = w.abs().amax(dim=1, keepdim=True) / 127
            assert ((got.float() - w).abs() <= 0.5 * step + w.abs() * 2**-8 + 1e-7).all(), name
            assert not torch.equal(got.float(), w.to(torch.bfloat16).float()) or w.abs().max() == 0
        else:
            assert torch.equal(got, w.to(torch.bfloat16))
    x = torch.randint(0, m.cfg.vocab_size, (1, 12), generator=torch.Generator().manual_seed(1))
    pos = torch.arange(12)[None]
    ref, q = m(x, pos)[0].float(), back.model.float()(x, pos)[0].float()
    assert (ref.argmax(-1) == q.argmax(-1)).float().mean() > 0.9


def test_a_damaged_int8_checkpoint_is_a_clear_error(tmp_path, shipped):
    from safetensors.torch import load_file, save_file
    checkpoint.save(_tiny(shipped), shipped.tokenizer, tmp_path, dtype=torch.int8)
    state = load_file(str(tmp_path / checkpoint.WEIGHTS))
    key = next(k for k in state if k.endswith(checkpoint.SCALE))
    save_file({k: v for k, v in state.items() if k != key}, str(tmp_path / checkpoint.WEIGHTS))
    with pytest.raises(checkpoint.CheckpointError, match="without one scale per row"):
        checkpoint.load(tmp_path)

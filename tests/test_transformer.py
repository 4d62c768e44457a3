"""Shapes and the attention layout: the context never depends on the canvas, and the sampler's
cached path computes exactly what the training path computes."""
import torch

from redraft.model.config import preset
from redraft.model.transformer import Transformer, context_canvas_mask
from redraft.model.sampler import ContextCache


def tiny(seed=0):
    torch.manual_seed(seed)
    return Transformer(preset("tiny")).eval()


def test_forward_shapes_and_kv():
    m = tiny()
    cfg = m.cfg
    tok = torch.randint(0, cfg.vocab_size, (3, 17))
    pos = torch.arange(17).expand(3, 17)
    h, kv = m(tok, pos)
    assert h.shape == (3, 17, cfg.d_model)
    assert m.logits(h).shape == (3, 17, cfg.vocab_size)
    assert len(kv) == cfg.n_layers
    assert kv[0][0].shape == (3, cfg.n_kv_heads, 17, cfg.head_dim)


def test_mask_layout():
    m = context_canvas_mask(torch.tensor([3]), torch.tensor([2]), 7)[0, 0]
    # context: causal within itself, never sees the canvas
    assert m[0].tolist() == [True, False, False, False, False, False, False]
    assert m[2].tolist() == [True, True, True, False, False, False, False]
    # canvas: everything real, no padding
    assert m[3].tolist() == [True] * 5 + [False, False]
    assert m[4].tolist() == [True] * 5 + [False, False]
    # padding rows attend to themselves only; nobody attends to padding
    assert m[5].tolist() == [False] * 5 + [True, False]


def test_context_states_identical_whatever_the_canvas_holds():
    m = tiny()
    V = m.cfg.vocab_size
    ctx = torch.randint(0, V, (1, 11))
    n_ctx, n_can = torch.tensor([11]), torch.tensor([6])
    outs = []
    for seed in range(3):
        g = torch.Generator().manual_seed(seed)
        canvas = torch.randint(0, V, (1, 6), generator=g)
        tok = torch.cat([ctx, canvas], 1)
        pos = torch.arange(17)[None]
        h, kv = m(tok, pos, mask=context_canvas_mask(n_ctx, n_can, 17))
        outs.append((h[:, :11], [(k[:, :, :11], v[:, :, :11]) for k, v in kv]))
    for h, kv in outs[1:]:
        assert torch.equal(h, outs[0][0])
        for (k, v), (k0, v0) in zip(kv, outs[0][1]):
            assert torch.equal(k, k0) and torch.equal(v, v0)


def test_cached_path_matches_training_path():
    """Encode the context through ContextCache (in two pieces, as across keystrokes), then the canvas
    against the cache: the canvas hidden states equal a single masked forward of the whole row."""
    m = tiny(1)
    V = m.cfg.vocab_size
    ctx = torch.randint(0, V, (13,)).tolist()
    canvas = torch.randint(0, V, (1, 5))
    full = torch.cat([torch.tensor([ctx]), canvas], 1)
    h_full, _ = m(full, torch.arange(18)[None], mask=context_canvas_mask(torch.tensor([13]), torch.tensor([5]), 18))
    cache = ContextCache()
    with torch.no_grad():
        cache.encode(m, ctx[:9])
        kv, reused = cache.encode(m, ctx)
        assert reused == 9
        h_can, _ = m(canvas, torch.arange(13, 18)[None], past=kv)
    torch.testing.assert_close(h_can, h_full[:, 13:], atol=1e-5, rtol=1e-5)


def test_gqa_and_mha_both_run():
    for kvh in (1, 4):
        cfg = preset("tiny")
        cfg.n_kv_heads = kvh
        m = Transformer(cfg)
        h, _ = m(torch.randint(0, cfg.vocab_size, (2, 9)), torch.arange(9).expand(2, 9))
        assert torch.isfinite(h).all()

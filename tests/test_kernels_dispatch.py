"""kernels/: the references are the model's own ops, and the dispatch (REDRAFT_KERNELS) picks
what it should."""
import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

from kernel_helpers import (  # noqa: F401  (sets TRITON_INTERPRET before triton loads)
    ROOT, close, rms_norm64, kernels, dispatch, attn_op,
    logits_op, rms_op, rope_op,
)

# ---------------------------------------------------------------- the references are the model's ops

def test_references_match_the_model_bitwise():
    """Wiring kernels.* into the model must not change its CPU outputs: the references are exactly
    the model's current computations."""
    from redraft.model.config import ModelConfig
    from redraft.model.sampler import pick
    from redraft.model.transformer import RMSNorm, Transformer, apply_rope, rope_tables

    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 5, 64, generator=g).bfloat16()
    r = torch.randn(2, 5, 64, generator=g).bfloat16()
    norm = RMSNorm(64, 1e-5)
    with torch.no_grad():
        norm.weight.copy_(torch.rand(64, generator=g) + 0.5)
        assert torch.equal(rms_op.rms_norm_ref(x, norm.weight, 1e-5), norm(x))
        y, hsum = rms_op.rms_norm_ref(x, norm.weight, 1e-5, r)
        assert torch.equal(hsum, r + x) and torch.equal(y, norm(r + x))

    q = torch.randn(2, 7, 4, 48, generator=g).bfloat16().transpose(1, 2)
    cos, sin = rope_tables(torch.arange(3, 10)[None].expand(2, 7), 48, 10000.0)
    assert torch.equal(rope_op.rope_ref(q, cos, sin), apply_rope(q, cos, sin))

    cfg = ModelConfig(vocab_size=300, d_model=64, n_layers=1, n_heads=4, n_kv_heads=2, max_seq_len=64)
    model = Transformer(cfg).eval()
    with torch.no_grad():
        toks = torch.randint(0, 300, (1, 12), generator=g)
        _, kv = model(toks[:, :8], torch.arange(8)[None])
        h, new = model(toks[:, 8:], torch.arange(8, 12)[None], past=kv)
        # layer 0's attention output, recomputed with the reference from the model's own q/k/v
        att = model.blocks[0].attn
        xin = model.blocks[0].attn_norm(model.tok_emb(toks[:, 8:]))
        qq = att.q_norm(att.wq(xin).view(1, 4, 4, 16).transpose(1, 2))
        c2, s2 = rope_tables(torch.arange(8, 12)[None], 16, cfg.rope_theta)
        qq = apply_rope(qq, c2, s2)
        yref = attn_op.canvas_attention_ref(qq, kv[0][0], kv[0][1], new[0][0], new[0][1])
        ymodel = F.scaled_dot_product_attention(qq, torch.cat([kv[0][0], new[0][0]], 2),
                                                torch.cat([kv[0][1], new[0][1]], 2), enable_gqa=True)
        assert torch.equal(yref, ymodel)

        logits = model.logits(h[0]).float()
        bias = torch.zeros(300)
        bias[[1, 2]] = float("-inf")
        logits[:, [1, 2]] = float("-inf")
        row_ban = torch.tensor([True, False, True, False])
        logits[row_ban, 7] = float("-inf")  # the sampler's min_tokens ban of <eom> (here id 7)
        tok, conf, _ = logits_op.logits_decision_ref(h[0], model.tok_emb.weight, bias, row_ban=row_ban,
                                                     ban_token=7, eom_token=7)
        want_tok, want_conf = pick(logits, 7, 0.0, None)
        assert torch.equal(tok, want_tok) and torch.equal(conf, want_conf)


# ---------------------------------------------------------------- dispatch

@pytest.fixture
def spy(monkeypatch):
    """Replace every Triton launcher with a recorder that calls the reference instead."""
    calls = []
    for mod, name, ref in ((rms_op, "rms_norm_triton", "rms_norm_ref"), (rope_op, "rope_triton", "rope_ref"),
                           (attn_op, "canvas_attention_triton", "canvas_attention_ref"),
                           (logits_op, "logits_decision_triton", "logits_decision_ref")):
        def fake(*a, _name=name, _ref=getattr(mod, ref), **k):
            calls.append(_name)
            return _ref(*a, **k)
        monkeypatch.setattr(mod, name, fake)
    return calls


def all_inputs():
    g = torch.Generator().manual_seed(0)
    ang = torch.arange(3.0)[None, None, :, None] * torch.ones(8)
    return (torch.randn(3, 40, generator=g), torch.rand(40, generator=g) + 0.5, torch.randn(1, 2, 3, 16, generator=g),
            ang.cos(), ang.sin(), *(torch.randn(1, 1, n, 16, generator=g) for n in (2, 2, 3, 3)),
            torch.randn(50, 40, generator=g))


def call_all_values(x, w, q, cos, sin, kc, vc, kn, vn, emb):
    """Every public function once (CPU tensors)."""
    y1 = kernels.rms_norm(x, w, 1e-5)
    y2, h = kernels.rms_norm(x, w, 1e-5, residual=x)
    r = kernels.rope(q, cos, sin)
    a = kernels.canvas_attention(q, kc, vc, kn, vn)
    tok, conf, _ = kernels.logits_decision(x, emb, eom_token=7)
    return y1, y2, h, r, a, tok, conf


def call_all():
    call_all_values(*all_inputs())


def test_dispatch_torch_forces_reference(monkeypatch, spy):
    monkeypatch.setenv("REDRAFT_KERNELS", "torch")
    assert kernels.mode() == "torch" and kernels.backend(torch.zeros(1)) == "torch"
    call_all()
    assert spy == []


def test_dispatch_auto_uses_reference_on_cpu(monkeypatch, spy):
    monkeypatch.delenv("REDRAFT_KERNELS", raising=False)
    assert kernels.mode() == "auto" and kernels.backend(torch.zeros(1)) == "torch"
    call_all()
    assert spy == []


def test_dispatch_triton_forces_kernels(monkeypatch, spy):
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    assert kernels.backend(torch.zeros(1)) == "triton"
    call_all()
    assert spy == ["rms_norm_triton", "rms_norm_triton", "rope_triton", "canvas_attention_triton",
                   "logits_decision_triton"]


def test_dispatch_triton_runs_the_kernel(monkeypatch):
    """Forced through the public API (no spy), the kernel runs and agrees with float64."""
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    x = torch.randn(3, 24)
    close(kernels.rms_norm(x, torch.ones(24), 1e-5), rms_norm64(x, torch.ones(24), 1e-5), torch.float32, "dispatched")


def test_dispatch_mixed_residual_dtype(monkeypatch):
    """Under autocast a block adds a bfloat16 branch to a float32 residual stream; the kernel takes
    both in the promoted dtype, as the reference's `x + residual` does (it raised before: training's
    held-out evaluation on a GPU crashed on it)."""
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    g = torch.Generator().manual_seed(3)
    a, x, w = torch.randn(5, 40, generator=g).bfloat16(), torch.randn(5, 40, generator=g), torch.rand(40, generator=g) + 0.5
    y, h = kernels.rms_norm(a, w, 1e-5, residual=x)
    assert y.dtype == h.dtype == torch.float32
    close(h, a.double() + x.double(), torch.float32, "sum")
    close(y, rms_norm64(a.float() + x, w, 1e-5), torch.float32, "mixed")


def test_dispatch_refusals(monkeypatch):
    pytest.importorskip("triton")
    monkeypatch.setenv("REDRAFT_KERNELS", "bogus")
    with pytest.raises(ValueError):
        kernels.backend(torch.zeros(1))
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    monkeypatch.setenv("TRITON_INTERPRET", "0")
    with pytest.raises(RuntimeError, match="TRITON_INTERPRET"):
        kernels.backend(torch.zeros(1))
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    with pytest.raises(RuntimeError, match="forward-only"):
        kernels.backend(torch.zeros(1, requires_grad=True))
    monkeypatch.setenv("REDRAFT_KERNELS", "auto")  # auto falls back to the reference for training
    assert dispatch.backend(torch.zeros(1, requires_grad=True)) == "torch"


def test_dispatch_traces_under_torch_compile(monkeypatch, spy):
    """Inside torch.compile the references run and Dynamo traces them without a graph break (the
    model is compiled for training), even with REDRAFT_KERNELS=triton."""
    monkeypatch.setenv("REDRAFT_KERNELS", "triton")
    inputs = all_inputs()
    torch._dynamo.reset()
    try:
        got = torch.compile(call_all_values, backend="eager", fullgraph=True)(*inputs)
    finally:
        torch._dynamo.reset()
    assert spy == []
    want = call_all_values(*inputs)  # outside a compiled region the (spied) launchers are called
    assert len(spy) == 5
    for a, b in zip(got, want):
        assert torch.equal(a, b)


def test_package_imports_without_triton():
    """The references need torch only: hide triton and use the package."""
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'triton' or name.startswith('triton.'):\n"
        "            raise ImportError('hidden')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import torch, kernels\n"
        "from kernels import _triton\n"
        "assert not _triton.HAS_TRITON\n"
        "y = kernels.rms_norm(torch.randn(2, 8), torch.ones(8), 1e-5)\n"
        "t, c, e = kernels.logits_decision(torch.randn(2, 8), torch.randn(10, 8), entropy=True)\n"
        "assert y.shape == (2, 8) and t.shape == (2,) and e.shape == (2,)\n"
        "import os; os.environ['REDRAFT_KERNELS'] = 'triton'\n"
        "try:\n"
        "    kernels.rms_norm(torch.randn(2, 8), torch.ones(8), 1e-5)\n"
        "except RuntimeError as err:\n"
        "    assert 'not installed' in str(err)\n"
        "else:\n"
        "    raise SystemExit('forced triton without triton did not raise')\n"
        "print('ok')\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    env.pop("REDRAFT_KERNELS", None)
    res = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]

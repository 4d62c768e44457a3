"""The masked-diffusion objective on a tiny batch: masking follows t, and the loss falls when the
model overfits one batch."""
import torch

from model.config import preset
from model.data import Example
from model.objective import collate, loss_fn, noise
from model.transformer import Transformer

MASK = 1


def test_noise_masks_only_the_canvas_at_rate_t():
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(10, 100, (4, 200))
    n_ctx = torch.tensor([50, 0, 100, 199])
    n_can = torch.tensor([150, 200, 50, 1])
    noisy, masked, t = noise(tokens, n_ctx, n_can, MASK, g, t=torch.tensor([0.5, 0.9, 0.1, 0.01]))
    pos = torch.arange(200)[None]
    canvas = (pos >= n_ctx[:, None]) & (pos < (n_ctx + n_can)[:, None])
    assert not (masked & ~canvas).any()
    assert torch.equal(noisy[~masked], tokens[~masked]) and (noisy[masked] == MASK).all()
    rates = masked.sum(1) / n_can
    assert abs(rates[0] - 0.5) < 0.15 and abs(rates[1] - 0.9) < 0.1
    assert masked[3].sum() == 1  # at least one masked position even at a tiny t


def test_loss_falls_on_a_tiny_overfit_batch():
    torch.manual_seed(0)
    cfg = preset("tiny")
    m = Transformer(cfg)
    exs = [Example(torch.randint(16, 64, (40,)).tolist(), n_ctx=24) for _ in range(4)]
    tokens, n_ctx, n_can = collate(exs, pad_id=0, seq_len=48)
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3)
    g = torch.Generator().manual_seed(0)
    losses = []
    for step in range(60):
        loss, stats = loss_fn(m, tokens, n_ctx, n_can, MASK, g, ar_weight=0.0, t=torch.full((4,), 0.5))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert sum(losses[-5:]) / 5 < 0.5 * sum(losses[:5]) / 5
    assert stats["masked_acc"] > 0.5


def _reference_loss(m, tokens, n_ctx, n_can, g, ar_weight):
    """The objective written the long way: full-vocabulary log-probabilities at every position, one
    term per loss, each averaged as documented in model/objective.py."""
    from model.transformer import context_canvas_mask
    B, T = tokens.shape
    noisy, masked, _ = noise(tokens, n_ctx, n_can, MASK, g)
    h, _ = m(noisy, torch.arange(T).expand(B, T), mask=context_canvas_mask(n_ctx, n_can, T))
    logp = m.logits(h).double().log_softmax(-1)
    ce = -logp.gather(-1, tokens[..., None]).squeeze(-1)
    diff = sum((ce[b][masked[b]].mean() if masked[b].any() else 0.0) for b in range(B)) / B
    ar = torch.arange(T)[None] < (n_ctx - 1)[:, None]
    nxt = -logp[:, :-1].gather(-1, tokens[:, 1:, None]).squeeze(-1)
    return diff + ar_weight * nxt[ar[:, :-1]].mean()


def test_loss_matches_the_objective_written_out():
    # rows of every shape: long and short contexts, a row with no context, padding
    torch.manual_seed(1)
    m = Transformer(preset("tiny")).double()
    exs = [Example(torch.randint(16, 400, (n,)).tolist(), n_ctx=c) for n, c in ((60, 40), (33, 5), (20, 0), (64, 50))]
    tokens, n_ctx, n_can = collate(exs, pad_id=0, seq_len=64)
    for ar_weight in (0.0, 0.5):
        got, stats = loss_fn(m, tokens, n_ctx, n_can, MASK, torch.Generator().manual_seed(3), ar_weight)
        want = _reference_loss(m, tokens, n_ctx, n_can, torch.Generator().manual_seed(3), ar_weight)
        assert abs(got.item() - want.item()) < 1e-5, (ar_weight, got.item(), want.item())
        assert abs(stats["loss"] - want.item()) < 1e-5  # the loss takes its cross-entropy in float32


def test_draft_rows_show_the_draft_where_unmasked_and_supervise_every_canvas_position():
    """Next-edit rows (model/edits.py) carry a draft: the canvas positions not masked show the draft
    token instead of the target and are supervised too; rows without a draft are masked as before."""
    exs = [Example(list(range(10, 40)), n_ctx=20, draft=[90 + i for i in range(10)]),
           Example(list(range(10, 40)), n_ctx=20)]
    tokens, n_ctx, n_can, draft = collate(exs, pad_id=0, seq_len=32)
    assert (draft[0, 20:30] == torch.arange(90, 100)).all() and (draft[0, :20] == -1).all() and (draft[1] == -1).all()
    g = torch.Generator().manual_seed(0)
    noisy, supervised, _ = noise(tokens, n_ctx, n_can, MASK, g, t=torch.tensor([0.3, 0.3]), draft=draft)
    row0, row1 = noisy[0, 20:30], noisy[1, 20:30]
    assert supervised[0, 20:30].all() and not supervised[0, :20].any()          # every canvas position
    assert ((row0 == MASK) | (row0 == draft[0, 20:30])).all() and (row0 != MASK).any()
    assert ((row1 == MASK) | (row1 == tokens[1, 20:30])).all()                  # plain row: targets or masks
    assert torch.equal(supervised[1], noisy[1] == MASK)
    assert collate(exs[1:], pad_id=0, seq_len=32).__len__() == 3                 # no draft: the old shape

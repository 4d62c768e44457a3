"""The masked-diffusion objective on a tiny batch: masking follows t, and the loss falls when the
model overfits one batch."""
import pytest
import torch

from redraft.model.config import preset
from redraft.model.data import Example
from redraft.model.objective import collate, loss_fn, noise
from redraft.model.transformer import Transformer

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
    from redraft.model.transformer import context_canvas_mask
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


def test_fillers_after_the_first_eom_weigh_filler_weight():
    """--filler-weight: each row's diffusion term is the mean over its masked canvas tokens with the
    <eom> fillers after the canvas's first <eom> weighted filler_weight (the first keeps 1; an <eom>
    in the context, a next-edit answer's, is not the canvas's)."""
    from redraft.model.transformer import context_canvas_mask
    torch.manual_seed(2)
    EOM = 7
    m = Transformer(preset("tiny")).double()
    rows = [[*torch.randint(16, 400, (20,)).tolist(), 30, 31, 32, EOM, EOM, EOM, EOM, EOM],
            [*torch.randint(16, 400, (10,)).tolist(), EOM, EOM, EOM, EOM],
            [*torch.randint(16, 400, (8,)).tolist(), EOM, 33, 34, EOM, EOM, EOM]]   # an <eom> in the context
    n_ctxs = [20, 10, 9]
    tokens, n_ctx, n_can = collate([Example(r, n_ctx=c) for r, c in zip(rows, n_ctxs)], pad_id=0, seq_len=28)
    B, T = tokens.shape
    for fw in (1.0, 0.1, 0.0):
        got, _ = loss_fn(m, tokens, n_ctx, n_can, MASK, torch.Generator().manual_seed(5), 0.0,
                         t=torch.full((B,), 0.9), eom_id=EOM, filler_weight=fw)
        noisy, masked, _ = noise(tokens, n_ctx, n_can, MASK, torch.Generator().manual_seed(5), t=torch.full((B,), 0.9))
        with torch.no_grad():
            h, _ = m(noisy, torch.arange(T).expand(B, T), mask=context_canvas_mask(n_ctx, n_can, T))
            ce = -m.logits(h).double().log_softmax(-1).gather(-1, tokens[..., None]).squeeze(-1)
        want = 0.0
        for b in range(B):
            first = rows[b].index(EOM, n_ctxs[b])   # the canvas's first
            w = torch.tensor([0.0 if not masked[b, p] else (fw if tokens[b, p] == EOM and p > first else 1.0)
                              for p in range(T)], dtype=torch.double)
            want += (w * ce[b]).sum() / w.sum() / B
        got = got.item()
        assert abs(got - float(want)) < 1e-6, (fw, got, float(want))


@pytest.mark.parametrize("boost", [None, 3.0])
def test_a_causal_answer_after_answer_id_is_a_mean_over_the_batchs_answer_tokens(boost):
    """Next-edit rows (model/edits.py): the context's tokens after answer_id (the answer) leave the
    context-wide next-token mean for a mean over all the batch's answer tokens, weighted by the
    share of rows that have one; a row without answer_id (a FIM row) is unchanged. `answer_weights`
    multiplies single answer tokens' terms (here the second token of the first answer's)."""
    from redraft.model.transformer import context_canvas_mask
    torch.manual_seed(4)
    ANS, EOM = 9, 7
    m = Transformer(preset("tiny")).double()
    rows = [[*torch.randint(16, 400, (15,)).tolist(), ANS, 40, 41, 42, EOM, EOM],   # a 3-token answer
            [*torch.randint(16, 400, (12,)).tolist(), ANS, EOM, EOM],               # silence: <eom> alone
            torch.randint(16, 400, (20,)).tolist()]                                  # a FIM row
    n_ctxs = [20, 14, 14]
    tokens, n_ctx, n_can = collate([Example(r, n_ctx=c) for r, c in zip(rows, n_ctxs)], pad_id=0, seq_len=22)
    B, T = tokens.shape
    weights = None
    if boost is not None:
        weights = torch.ones(B, T)
        weights[0, 16] = boost          # position 16 predicts token 41
    for ar_weight in (0.0, 0.5):
        got, stats = loss_fn(m, tokens, n_ctx, n_can, MASK, torch.Generator().manual_seed(6), ar_weight,
                             t=torch.full((B,), 0.7), answer_id=ANS, answer_weights=weights)
        noisy, masked, _ = noise(tokens, n_ctx, n_can, MASK, torch.Generator().manual_seed(6), t=torch.full((B,), 0.7))
        with torch.no_grad():
            h, _ = m(noisy, torch.arange(T).expand(B, T), mask=context_canvas_mask(n_ctx, n_can, T))
            logp = m.logits(h).double().log_softmax(-1)
        ce = -logp.gather(-1, tokens[..., None]).squeeze(-1)
        nxt = -logp[:, :-1].gather(-1, tokens[:, 1:, None]).squeeze(-1)   # position p predicting p + 1
        diff = sum(ce[b][masked[b]].mean() for b in range(B)) / B
        answer, context = [], []
        for b, row in enumerate(rows):
            start = row.index(ANS) if ANS in row else n_ctxs[b]
            answer += nxt[b, start:n_ctxs[b] - 1].tolist()
            context += nxt[b, :min(start, n_ctxs[b] - 1)].tolist()
        assert len(answer) == 4 + 1   # three tokens and <eom>; <eom> alone
        answer_sum = sum(answer) + ((boost - 1) * answer[1] if boost else 0.0)
        want = diff + (2 / B) * answer_sum / len(answer) + ar_weight * sum(context) / len(context)
        assert abs(got.item() - float(want)) < 1e-5, (ar_weight, got.item(), float(want))  # float32 cross-entropy
    assert 0.0 <= stats["answer_acc"] <= 1.0 and stats["answer"] > 0
    assert ("changed_acc" in stats) == (boost is not None)

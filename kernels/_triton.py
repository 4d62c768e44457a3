"""Triton, if it is installed; the package works without it (the torch references need torch only).

Kernels are written as ordinary `@triton.jit` functions but decorated with `jit` from here, which
defers `triton.jit` to the first launch. Two reasons:
  * without triton the op modules still import (the decorator and `tl.constexpr` annotations are
    stubs, and launching raises a clear error);
  * `TRITON_INTERPRET` is read by `triton.jit` when it wraps a function, so a module-level
    `@triton.jit` freezes the choice at import time: any earlier import of the package (the model
    imports it) would make a later `TRITON_INTERPRET=1` in a test ineffective. Here the wrapped
    kernel is built per interpreter setting at launch.
A consequence: a kernel may not call another jitted helper (the compiler would see the lazy
wrapper, not a JITFunction); the kernels here are written inline.
"""
from __future__ import annotations

import os

try:  # pragma: no cover - depends on the environment
    import triton
    import triton.language as tl
    HAS_TRITON = True
except Exception:  # ImportError, or a broken install (missing libcuda is not an import error)
    triton = None
    HAS_TRITON = False

    class _Stub:
        """Stands in for `triton.language` so that kernel signatures (`BLOCK: tl.constexpr`) evaluate."""

        def __getattr__(self, name):
            return _Stub()

        def __call__(self, *a, **k):
            raise RuntimeError("triton is not installed")

    tl = _Stub()


def interpret_mode() -> bool:
    """True when kernels run in Triton's CPU interpreter (TRITON_INTERPRET=1)."""
    if HAS_TRITON:
        return bool(triton.knobs.runtime.interpret)
    return os.environ.get("TRITON_INTERPRET", "").lower() in ("1", "true", "on", "yes")


class LazyJIT:
    """`fn[grid](*args)` like a JITFunction; the real one is built on first launch."""

    def __init__(self, fn):
        self.fn = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._built: dict[bool, object] = {}

    def kernel(self):
        if not HAS_TRITON:
            raise RuntimeError(f"{self.__name__}: triton is not installed")
        interp = interpret_mode()
        k = self._built.get(interp)
        if k is None:
            k = self._built[interp] = triton.jit(self.fn)  # reads TRITON_INTERPRET now
        return k

    def __getitem__(self, grid):
        return self.kernel()[grid]


def jit(fn) -> LazyJIT:
    return LazyJIT(fn)


def next_pow2(n: int) -> int:
    return 1 << max(0, int(n) - 1).bit_length()


def num_sms(device) -> int:
    """Streaming multiprocessors of a CUDA device; a small stand-in elsewhere (interpreter)."""
    import torch
    if device.type == "cuda":
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 4


def static_trips(n: int) -> int:
    """Trip count of a kernel loop, for a `TRIPS: tl.constexpr` parameter beside the runtime `n`.

    Triton 3.6's interpreter turns every runtime scalar into a 1-element numpy array and calls int()
    on it for `range(...)` bounds, which NumPy >= 2.4 refuses ("only 0-dimensional arrays can be
    converted to Python scalars"). So kernels loop over `range(TRIPS if TRIPS >= 0 else n)`: under the
    interpreter the count is passed as a constexpr (free: nothing is compiled), compiled launches pass
    -1 and loop to the runtime `n` (no recompilation when a context grows).
    """
    return int(n) if interpret_mode() else -1


def dot_upcast() -> bool:
    """The interpreter stores bfloat16 as raw uint16 and its tl.dot multiplies the bit patterns
    (triton-lang/triton#11584), so under TRITON_INTERPRET the kernels upcast dot operands to float32.
    Compiled kernels keep the inputs' dtype (bf16 tensor cores)."""
    return interpret_mode()

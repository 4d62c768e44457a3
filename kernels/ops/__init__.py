"""One module per op: `_<op>_kernel` (Triton) -> `<op>_triton` (launcher) -> `<op>_ref` (torch).

The launchers take tensors on a CUDA device, or CPU tensors under TRITON_INTERPRET=1; they are
forward-only (no autograd). Pick between them through `redraft.kernels.dispatch`, not here.
"""

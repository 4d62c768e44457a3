"""GPU kernels for the denoising step (Triton), each with the torch reference it must match.

    rms_norm(x, weight, eps, residual=None)                     fused residual add + RMSNorm
    rope(x, cos, sin)                                           rotary embedding (GPT-NeoX halves)
    canvas_attention(q, k_ctx, v_ctx, k_can, v_can, scale=None) canvas over [context | canvas], GQA,
                                                                split along the keys (flash-decoding)
    logits_decision(h, weight, bias=None, norm_weight=None, eps=1e-6, row_ban=None, ban_token=-1,
                    entropy=False, eom_token=-1)                final norm + LM head + online softmax
                                                                -> (token, confidence, entropy)
Which implementation runs: kernels/dispatch.py (REDRAFT_KERNELS=auto|triton|torch). The package
imports and the references work without triton installed.
"""
from redraft.kernels.dispatch import backend, canvas_attention, logits_decision, mode, rms_norm, rope

__all__ = ["backend", "canvas_attention", "logits_decision", "mode", "rms_norm", "rope"]

"""Recurrent layers: RNN, GRU, LSTM (ONNX's gate layouts, directions, activations, clip,
sequence_lens, layout). The time loop is unrolled at trace time (sequence length is static)."""
from __future__ import annotations

import jaxweb.nn as nn
import jaxweb.numpy as jnp

from .registry import op, unsupported
from .util import arr, astype, dtype_of

_ACT = {
    "Tanh": lambda x, a, b: jnp.tanh(x), "Sigmoid": lambda x, a, b: nn.sigmoid(x),
    "Relu": lambda x, a, b: nn.relu(x), "Affine": lambda x, a, b: a * x + b,
    "LeakyRelu": lambda x, a, b: jnp.where(x >= 0, x, a * x),
    "ThresholdedRelu": lambda x, a, b: jnp.where(x > a, x, 0.0),
    "ScaledTanh": lambda x, a, b: a * jnp.tanh(b * x),
    "HardSigmoid": lambda x, a, b: jnp.clip(a * x + b, 0, 1),
    "Elu": lambda x, a, b: jnp.where(x > 0, x, a * jnp.expm1(x)),
    "Softsign": lambda x, a, b: x / (1 + jnp.abs(x)), "Softplus": lambda x, a, b: nn.softplus(x),
}
_DEFAULT_ALPHA = {"LeakyRelu": 0.01, "ThresholdedRelu": 1.0, "HardSigmoid": 0.2, "Elu": 1.0, "Affine": 1.0,
                  "ScaledTanh": 1.0}
_DEFAULT_BETA = {"HardSigmoid": 0.5, "ScaledTanh": 1.0, "Affine": 0.0}
_CELLS = {"RNN": (1, ("Tanh",)), "GRU": (3, ("Sigmoid", "Tanh")), "LSTM": (4, ("Sigmoid", "Tanh", "Tanh"))}


def _activations(node, dirs: int):
    n_act = len(_CELLS[node.op_type][1])
    names = node.attr("activations") or list(_CELLS[node.op_type][1]) * dirs
    alphas, betas = list(node.attr("activation_alpha") or []), list(node.attr("activation_beta") or [])
    out, ai, bi = [], 0, 0
    for name in names:
        key = next((k for k in _ACT if k.lower() == name.lower()), None)
        if key is None:
            raise unsupported(node, f"activation {name!r}")
        a = b = None
        if key in _DEFAULT_ALPHA:
            a = alphas[ai] if ai < len(alphas) else _DEFAULT_ALPHA[key]
            ai += 1 if ai < len(alphas) else 0
        if key in _DEFAULT_BETA:
            b = betas[bi] if bi < len(betas) else _DEFAULT_BETA[key]
            bi += 1 if bi < len(betas) else 0
        out.append(lambda x, f=_ACT[key], a=a, b=b: f(x, a, b))
    return [out[d * n_act:(d + 1) * n_act] for d in range(dirs)]


def _step(kind, node, acts, x_t, h, c, w, r, wb, rb, p):
    clip = node.attr("clip")
    cl = (lambda v: jnp.clip(v, -clip, clip)) if clip is not None else (lambda v: v)
    hs = h.shape[-1]
    xw, hr = x_t @ w.T + wb, h @ r.T + rb
    if kind == "RNN":
        return acts[0](cl(xw + hr)), None
    if kind == "GRU":
        f, g = acts
        z = f(cl(xw[:, :hs] + hr[:, :hs]))
        rr = f(cl(xw[:, hs:2 * hs] + hr[:, hs:2 * hs]))
        if node.attr("linear_before_reset", 0):
            hh = g(cl(xw[:, 2 * hs:] + rr * hr[:, 2 * hs:]))
        else:
            hh = g(cl(xw[:, 2 * hs:] + (rr * h) @ r[2 * hs:].T + rb[2 * hs:]))
        return (1 - z) * hh + z * h, None
    f, g, hfn = acts
    gates = xw + hr
    pi, po, pf = (p[:hs], p[hs:2 * hs], p[2 * hs:]) if p is not None else (0, 0, 0)
    i = f(cl(gates[:, :hs] + pi * c))
    ft = f(cl(gates[:, 2 * hs:3 * hs] + pf * c))
    if node.attr("input_forget", 0):
        ft = 1 - i
    cc = g(cl(gates[:, 3 * hs:]))
    c_new = ft * c + i * cc
    o = f(cl(gates[:, hs:2 * hs] + po * c_new))
    return o * hfn(c_new), c_new


def _recurrent(node, x, w, r, b=None, lens=None, h0=None, c0=None, p=None):
    kind = node.op_type
    gates = _CELLS[kind][0]
    x = arr(x)
    dt = dtype_of(x)
    if node.attr("layout", 0):
        x = jnp.swapaxes(x, 0, 1)
    seq, batch = x.shape[0], x.shape[1]
    w, r = astype(w, dt), astype(r, dt)
    dirs, hs = w.shape[0], node.attr("hidden_size") or r.shape[-1]
    b = jnp.zeros((dirs, 2 * gates * hs), x.dtype) if b is None else astype(b, dt)
    h0 = jnp.zeros((dirs, batch, hs), x.dtype) if h0 is None else astype(h0, dt)
    c0 = jnp.zeros((dirs, batch, hs), x.dtype) if c0 is None else astype(c0, dt)
    lens = None if lens is None else arr(lens).reshape(batch, 1)
    acts = _activations(node, dirs)
    direction = node.attr("direction", "forward")
    ys, hs_last, cs_last = [], [], []
    for d in range(dirs):
        reverse = direction == "reverse" or (direction == "bidirectional" and d == 1)
        h, c, outs = h0[d], c0[d], [None] * seq
        for step in range(seq):
            t = seq - 1 - step if reverse else step
            h_new, c_new = _step(kind, node, acts[d], x[t], h, c, w[d], r[d], b[d, :gates * hs],
                                 b[d, gates * hs:], None if p is None else astype(p, dt)[d])
            if lens is not None:
                live = t < lens
                h_new = jnp.where(live, h_new, h)
                c_new = c_new if c_new is None else jnp.where(live, c_new, c)
                outs[t] = jnp.where(live, h_new, jnp.zeros((), x.dtype))
            else:
                outs[t] = h_new
            h, c = h_new, c_new
        ys.append(jnp.stack(outs))
        hs_last.append(h)
        cs_last.append(c)
    y = jnp.stack(ys, axis=1)  # [seq, dirs, batch, hidden]
    y_h = jnp.stack(hs_last)
    if node.attr("layout", 0):
        y, y_h = jnp.transpose(y, (2, 0, 1, 3)), jnp.swapaxes(y_h, 0, 1)
    if kind == "LSTM":
        y_c = jnp.stack(cs_last)
        return y, y_h, jnp.swapaxes(y_c, 0, 1) if node.attr("layout", 0) else y_c
    return y, y_h


op("RNN", "GRU", "LSTM", since=7)(_recurrent)

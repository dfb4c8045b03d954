"""Helpers shared by the operator families: values as device arrays, dtypes, axes."""
from __future__ import annotations

from typing import Any

import jaxweb.lax as lax
import jaxweb.numpy as jnp
from jaxweb._src import dtypes

from .tensors import HostTensor, onnx_dtype


def arr(x: Any) -> Any:
    """A value as a jaxweb array (HostTensors move to the device)."""
    return x.array() if isinstance(x, HostTensor) else x


def dtype_of(x: Any) -> dtypes.DType:
    """The element type a value has in the graph (a HostTensor keeps its ONNX dtype)."""
    return x.dtype if isinstance(x, HostTensor) else dtypes.dtype(x.dtype)



def canon(dt: dtypes.DType) -> dtypes.DType:
    """The dtype jaxweb computes `dt` in (int64 -> int32 when x64 is off, as in JAX)."""
    return dtypes.canonicalize_dtype(dt)


def to_dtype(code: int, what: str = "Cast") -> dtypes.DType:
    return onnx_dtype(code, what)


def axis(a: int, rank: int) -> int:
    """A possibly negative axis as 0..rank-1 (rank 0 accepts axis 0/-1 as numpy does not)."""
    if not -max(rank, 1) <= a < max(rank, 1):
        raise ValueError(f"axis {a} is out of range for a tensor of rank {rank}")
    return a % max(rank, 1)


def axes(values: Any, rank: int) -> list[int]:
    return [axis(int(a), rank) for a in values]


def astype(x: Any, dt: dtypes.DType) -> Any:
    """`x` as an array of `dt` (canonicalized)."""
    x = arr(x)
    dt = canon(dt)
    return x if dtypes.dtype(x.dtype) is dt else x.astype(dt)




def broadcast_shapes(*shapes: tuple) -> tuple:
    return tuple(lax.broadcast_shapes(*shapes))


def broadcast_flat(t: HostTensor, shape: tuple) -> list:
    """The elements of host tensor `t` broadcast to `shape`, flat."""
    if t.shape == shape:
        return t.values
    rank = len(shape)
    src = (1,) * (rank - t.ndim) + t.shape
    strides, acc = [0] * rank, 1
    for i in range(rank - 1, -1, -1):
        strides[i] = acc if src[i] != 1 else 0
        acc *= src[i]
    vals, out = t.values, []
    total = 1
    for d in shape:
        total *= d
    for flat in range(total):
        off, rem = 0, flat
        for i in range(rank - 1, -1, -1):
            rem, k = divmod(rem, shape[i])
            off += k * strides[i]
        out.append(vals[off])
    return out


def matmul(a, b):
    """`jnp.matmul`, with the batch dimensions of two stacks of matrices (attention's
    batch x heads) collapsed into one: a product with one batch dimension is what a
    backend's GEMM routine runs (`compiler/gemm.py`), so a transformer's attention
    products take it instead of a generic reduction kernel."""
    sa, sb = a.shape, b.shape
    if len(sa) > 3 and len(sb) == len(sa) and sa[:-2] == sb[:-2]:
        batch = sa[:-2]
        out = jnp.matmul(a.reshape((-1,) + sa[-2:]), b.reshape((-1,) + sb[-2:]))
        return out.reshape(batch + out.shape[-2:])
    return jnp.matmul(a, b)

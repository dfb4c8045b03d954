"""The threefry2x32 PRNG: the hash, and seed / split / fold_in / random_bits on raw keys.

A raw key is a uint32[2] array. Everything here is written with lax uint32 ops
(add, xor, shifts), so it traces, jits, vmaps and runs on every device, and gives
the same bits as JAX for the same key: JAX's threefry2x32 (Salmon et al. 2011,
20 rounds), its counter layouts in both settings of `jax_threefry_partitionable`
(the default, True, since JAX 0.5), and its way of folding data into a key.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

from .. import config, core, dtypes
from ..compiler import graph
from ..dispatch import def_lowering
from ..interpreters import rules as R
from ..lax import _modules as lax
from ..interpreters.batching import broadcast_batched

U32 = dtypes.uint32
UINT_DTYPES = {8: dtypes.uint8, 16: dtypes.uint16, 32: dtypes.uint32, 64: dtypes.uint64}

# Rotation distances of the two alternating groups of four rounds, and the key
# schedule's parity constant (Threefish's C240).
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
KS_PARITY = 0x1BD11BDA


def _block(add, xor, rotl, x0, x1, ka, kb, rotations, inc):
    """Four mix rounds, then the key injection: Threefry's unit of work."""
    for r in rotations:
        x0 = add(x0, x1)
        x1 = xor(x0, rotl(x1, r))
    return add(x0, ka), add(add(x1, kb), inc)


# One primitive per four-round block: jaxprs show the hash as five `threefry2x32_block`
# equations; lowered, each block is plain uint32 graph ops, which fuse (the two words of
# all the rounds make one two-output kernel).
threefry_block_p = core.Primitive("threefry2x32_block")
threefry_block_p.multiple_results = True


@core.def_abstract_eval(threefry_block_p)
def _block_abstract(x0, x1, ka, kb, *, rotations, inc):
    avals = (x0, x1, ka, kb)
    if any(a.dtype != U32 for a in avals):
        raise TypeError(f"Arguments to threefry2x32 must have uint32 type, got {list(avals)}")
    if len({a.shape for a in avals}) != 1:
        raise TypeError(f"threefry2x32 operands must have equal shapes, got {[a.shape for a in avals]}")
    return [core.ShapedArray(x0.shape, U32)] * 2


def _graph_ops():
    def lift(b, like):
        return b if isinstance(b, graph.Node) else graph.const(b, U32, like.shape)

    def add(a, b):
        return graph.alu("add", a, lift(b, a))

    def xor(a, b):
        return graph.alu("xor", a, lift(b, a))

    def rotl(v, d):
        return graph.alu("or", graph.alu("shl", v, lift(d, v)), graph.alu("shr_logical", v, lift(32 - d, v)))
    return add, xor, rotl


@def_lowering(threefry_block_p)
def _block_lower(x0, x1, ka, kb, *, rotations, inc):
    return list(_block(*_graph_ops(), x0, x1, ka, kb, rotations, inc))


def _block_batch(args, dims, **params):
    args, d = broadcast_batched(args, dims)
    return threefry_block_p.bind(*args, **params), [d, d]


R.primitive_batchers[threefry_block_p] = _block_batch
R.defnondifferentiable(threefry_block_p)


def threefry2x32(k1: Any, k2: Any, x1: Any, x2: Any) -> tuple[Any, Any]:
    """The threefry2x32 hash (20 rounds) of counters (x1, x2) under key (k1, k2); uint32,
    the keys broadcast to the counters' shape."""
    shape = core.get_aval(x1).shape
    k1, k2 = (lax.broadcast_in_dim(k, shape, ()) if core.get_aval(k).shape != shape else k
              for k in (k1, k2))
    ks = (k1, k2, lax.bitwise_xor(lax.bitwise_xor(k1, k2), KS_PARITY))
    x = [lax.add(x1, ks[0]), lax.add(x2, ks[1])]
    for i in range(5):
        x = threefry_block_p.bind(x[0], x[1], ks[(i + 1) % 3], ks[(i + 2) % 3],
                                  rotations=ROTATIONS[i % 2], inc=i + 1)
    return x[0], x[1]


def _key_words(key: Any) -> tuple[Any, Any]:
    return (lax.reshape(lax.slice(key, (0,), (1,)), ()),
            lax.reshape(lax.slice(key, (1,), (2,)), ()))


def threefry_2x32(key: Any, count: Any) -> Any:
    """Hash an array of uint32 counts: its flat first and second halves (zero-padded to
    even length) are the two counter words; the two outputs are concatenated back."""
    k1, k2 = _key_words(key)
    shape = core.get_aval(count).shape
    n = math.prod(shape)
    flat = lax.reshape(count, (n,))
    if n % 2:
        flat = lax.concatenate([flat, lax.broadcast_in_dim(lax.convert_element_type(0, U32), (1,), ())], 0)
    half = (n + 1) // 2
    y1, y2 = threefry2x32(k1, k2, lax.slice(flat, (0,), (half,)), lax.slice(flat, (half,), (2 * half,)))
    out = lax.concatenate([y1, y2], 0)
    if n % 2:
        out = lax.slice(out, (0,), (n,))
    return lax.reshape(out, shape)


def iota_2x32_shape(shape: Sequence[int]) -> tuple[Any, Any]:
    """The row-major index of every element of `shape` as a 64-bit count (hi, lo words)."""
    n = math.prod(shape)
    if n > 2 ** 32:
        raise NotImplementedError("random bits array of size exceeding 2 ** 32")
    hi = lax.broadcast_in_dim(lax.convert_element_type(0, U32), tuple(shape), ())
    if not shape:
        return hi, hi
    lo = lax.reshape(lax.iota(U32, n), tuple(shape))
    return hi, lo


# ---------------------------------------------------------------- the PRNG operations
def seed(seed: Any) -> Any:
    """The raw key of an integer seed: its high and low 32 bits (high is 0 below 64 bits)."""
    aval = core.get_aval(seed)
    if aval.shape:
        raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
    if aval.dtype.kind not in "iub":
        raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    if aval.dtype.kind == "b":
        seed = lax.convert_element_type(seed, dtypes.int32)
    lo = lax.convert_element_type(seed, U32)
    if aval.dtype.itemsize == 8:
        hi = lax.convert_element_type(lax.shift_right_logical(seed, 32), U32)
    else:
        hi = lax.convert_element_type(0, U32)
    return lax.concatenate([lax.reshape(hi, (1,)), lax.reshape(lo, (1,))], 0)


def split(key: Any, shape: tuple[int, ...]) -> Any:
    """uint32[*shape, 2]: the keys split off `key`."""
    if config.read("jax_threefry_partitionable"):
        k1, k2 = _key_words(key)
        c1, c2 = iota_2x32_shape(shape)
        b1, b2 = threefry2x32(k1, k2, c1, c2)
        nd = len(shape)
        return lax.concatenate([lax.broadcast_in_dim(b, (*shape, 1), tuple(range(nd)))
                                   for b in (b1, b2)], nd)
    n = math.prod(shape)
    return lax.reshape(threefry_2x32(key, lax.iota(U32, n * 2)), (*shape, 2))


def fold_in(key: Any, data: Any) -> Any:
    """The key derived from `key` and a uint32 scalar: the hash of the counter (0, data)."""
    return threefry_2x32(key, seed(data))


def random_bits(key: Any, bit_width: int, shape: tuple[int, ...]) -> Any:
    """uint{bit_width}[*shape] of random bits from one raw key."""
    if bit_width not in (8, 16, 32, 64):
        raise TypeError("requires 8-, 16-, 32- or 64-bit field width.")
    dtype = UINT_DTYPES[bit_width]
    if config.read("jax_threefry_partitionable"):
        k1, k2 = _key_words(key)
        c1, c2 = iota_2x32_shape(shape)
        b1, b2 = threefry2x32(k1, k2, c1, c2)
        if bit_width == 64:
            hi, lo = (lax.convert_element_type(b, dtype) for b in (b1, b2))
            return lax.bitwise_or(lax.shift_left(hi, 32), lo)
        bits = lax.bitwise_xor(b1, b2)
        return bits if bit_width == 32 else lax.convert_element_type(bits, dtype)
    return _random_bits_original(key, bit_width, dtype, tuple(shape))


def _random_bits_original(key: Any, bit_width: int, dtype: Any, shape: tuple[int, ...]) -> Any:
    """The counter layout of `jax_threefry_partitionable=False`: hash iota(ceil(bits/32))
    and reinterpret the words (two per uint64, little-endian pieces for uint8/16)."""
    size = math.prod(shape)
    max_count = -(-bit_width * size // 32)
    if max_count >= 2 ** 32 - 1:
        raise NotImplementedError("random bits array of size exceeding 2 ** 32")
    bits = threefry_2x32(key, lax.iota(U32, max_count))
    if bit_width == 64:
        half = max_count // 2
        hi, lo = (lax.convert_element_type(lax.slice(bits, (a,), (a + half,)), dtype)
                  for a in (0, half))
        bits = lax.bitwise_or(lax.shift_left(hi, 32), lo)
    elif bit_width in (8, 16):
        per = 32 // bit_width
        shifts = lax.mul(lax.broadcasted_iota(U32, (per, max_count), 0), bit_width)
        words = lax.broadcast_in_dim(bits, (per, max_count), (1,))
        pieces = lax.bitwise_and(lax.shift_right_logical(words, shifts), (1 << bit_width) - 1)
        pieces = lax.reshape(lax.transpose(pieces, (1, 0)), (max_count * per,))
        bits = lax.convert_element_type(lax.slice(pieces, (0,), (size,)), dtype)
    return lax.reshape(bits, shape)

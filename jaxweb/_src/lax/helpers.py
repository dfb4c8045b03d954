"""lax's configuration types and shape arithmetic: the dot-algorithm and accuracy enums
(accepted; jaxweb computes every dot in its operands' precision with a float32 or wider
accumulator, and unary functions at full accuracy), the random-algorithm enum, ragged-dot
dimension numbers, and the helpers that compute convolution and reduce_window output shapes
(plain integer arithmetic, as JAX's, without numpy)."""
from __future__ import annotations

__all__ = ["AccuracyMode", "DotAlgorithm", "DotAlgorithmPreset", "PrecisionLike", "RaggedDotDimensionNumbers",
           "RandomAlgorithm", "Tolerance", "conv_general_permutations", "conv_general_shape_tuple",
           "conv_shape_tuple", "conv_transpose_shape_tuple", "reduce_window_shape_tuple"]

import enum
from typing import Any, NamedTuple, Optional, Sequence, Union

from .convolution import padtype_to_pads, _conv_transpose_padding
from .extra import Precision


class AccuracyMode(enum.Enum):
    """Accuracy requested of a unary function (`lax.exp(x, accuracy=...)` in JAX)."""
    HIGHEST = 1
    DEFAULT = 2


class Tolerance:
    """Tolerances a unary function's result may have: (atol and rtol) or (atol and ulps)."""

    def __init__(self, atol: float = 0.0, rtol: float = 0.0, ulps: int = 0):
        if atol < 0.0 or rtol < 0.0 or ulps < 0.0:
            raise ValueError("Tolerances must be non-negative.")
        if atol == 0.0 and rtol == 0.0 and ulps == 0:
            raise ValueError("At least one of atol, rtol, or ulps must be set.")
        self.atol, self.rtol, self.ulps = atol, rtol, ulps


class DotAlgorithm(NamedTuple):
    """The algorithm of a dot: storage types of its operands and its accumulator type."""
    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """Named dot algorithms (`precision=lax.DotAlgorithmPreset.F32_F32_F32`)."""
    DEFAULT = 1
    ANY_F8_ANY_F8_F32 = 2
    ANY_F8_ANY_F8_F32_FAST_ACCUM = 3
    ANY_F8_ANY_F8_ANY = 4
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = 5
    F16_F16_F16 = 6
    F16_F16_F32 = 7
    BF16_BF16_BF16 = 8
    BF16_BF16_F32 = 9
    BF16_BF16_F32_X3 = 10
    BF16_BF16_F32_X6 = 11
    BF16_BF16_F32_X9 = 12
    TF32_TF32_F32 = 13
    TF32_TF32_F32_X3 = 14
    F32_F32_F32 = 15
    F64_F64_F64 = 16

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name


PrecisionLike = Union[None, str, Precision, tuple, DotAlgorithm, DotAlgorithmPreset]


class RandomAlgorithm(enum.IntEnum):
    """The bit generator of `rng_bit_generator`."""
    RNG_DEFAULT = 0
    RNG_THREE_FRY = 1
    RNG_PHILOX = 2

    def __str__(self) -> str:
        return self.name


class RaggedDotDimensionNumbers:
    """Ragged, group and dot dimensions of `ragged_dot_general` (immutable, hashable)."""

    __slots__ = ("dot_dimension_numbers", "lhs_ragged_dimensions", "rhs_group_dimensions")

    def __init__(self, dot_dimension_numbers: Any, lhs_ragged_dimensions: Sequence[int],
                 rhs_group_dimensions: Sequence[int]):
        object.__setattr__(self, "dot_dimension_numbers",
                           tuple(tuple(map(tuple, t)) for t in dot_dimension_numbers))
        object.__setattr__(self, "lhs_ragged_dimensions", tuple(lhs_ragged_dimensions))
        object.__setattr__(self, "rhs_group_dimensions", tuple(rhs_group_dimensions))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"cannot assign to field {name!r}")

    def _key(self) -> tuple:
        return (self.dot_dimension_numbers, self.lhs_ragged_dimensions, self.rhs_group_dimensions)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, RaggedDotDimensionNumbers) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (f"RaggedDotDimensionNumbers(dot_dimension_numbers={self.dot_dimension_numbers}, "
                f"lhs_ragged_dimensions={self.lhs_ragged_dimensions}, "
                f"rhs_group_dimensions={self.rhs_group_dimensions})")


# ---------------------------------------------------------------- shape arithmetic
def _stride_dim(d: int, window: int, stride: int) -> int:
    return max((d - window) // stride + 1, 0)


def conv_general_permutations(dimension_numbers: Any) -> tuple:
    """(lhs_perm, rhs_perm, out_perm): each spec's axes in (N, C, spatial...) / (O, I, spatial...)
    order, spatial axes ordered as in the kernel spec (JAX's errors for malformed specs)."""
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (a, b) in enumerate(charpairs):
        if not dimension_numbers[i].count(a) == dimension_numbers[i].count(b) == 1:
            raise TypeError(f"convolution dimension_numbers[{i}] must contain the characters '{a}' and "
                            f"'{b}' exactly once, got {dimension_numbers[i]}.")
        if len(dimension_numbers[i]) != len(set(dimension_numbers[i])):
            raise TypeError(f"convolution dimension_numbers[{i}] cannot have duplicate characters, "
                            f"got {dimension_numbers[i]}.")
    if not (set(lhs_spec) - {"N", "C"} == set(rhs_spec) - {"O", "I"} == set(out_spec) - {"N", "C"}):
        raise TypeError("convolution dimension_numbers elements must each have the same set of spatial "
                        f"characters, got {dimension_numbers}.")

    def perm(spec: str, pair: tuple) -> tuple:
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs_spec:
            spatial = sorted(spatial, key=lambda i: rhs_spec.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return tuple(perm(s, p) for s, p in zip(dimension_numbers, charpairs))


def conv_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], strides: Sequence[int], pads: Any,
                     batch_group_count: int = 1) -> tuple:
    """The output shape of a convolution whose operands are in canonical (NC..., OI...) order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(f"Wrong number of explicit pads for convolution: expected {len(lhs_shape) - 2}, "
                        f"got {len(pads)}.")
    padded = [d + lo + hi for d, (lo, hi) in zip(lhs_shape[2:], pads)]
    if any(p < 0 for p in padded):
        raise ValueError("Negative padding is larger than the size of the corresponding dimension: "
                         f"got padding={pads} for lhs_shape[2:]={tuple(lhs_shape[2:])}")
    space = tuple(_stride_dim(d, k, s) for d, k, s in zip(padded, rhs_shape[2:], strides))
    n = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (n, rhs_shape[0]) + space


def _take(shape: Sequence[int], perm: Sequence[int]) -> tuple:
    return tuple(shape[i] for i in perm)


def _untake(shape: Sequence[int], perm: Sequence[int]) -> tuple:
    out = [0] * len(perm)
    for v, i in zip(shape, perm):
        out[i] = v
    return tuple(out)


def conv_general_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
                             padding: Any, dimension_numbers: Any) -> tuple:
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    out = conv_shape_tuple(_take(lhs_shape, lhs_perm), _take(rhs_shape, rhs_perm), window_strides, padding)
    return _untake(out, out_perm)


def conv_transpose_shape_tuple(lhs_shape: Sequence[int], rhs_shape: Sequence[int], window_strides: Sequence[int],
                               padding: Any, dimension_numbers: Any) -> tuple:
    lhs_perm, rhs_perm, out_perm = conv_general_permutations(dimension_numbers)
    lhs_t, rhs_t = _take(lhs_shape, lhs_perm), _take(rhs_shape, rhs_perm)
    if isinstance(padding, str):
        padding = [_conv_transpose_padding(k, s, padding) for k, s in zip(rhs_t[2:], window_strides)]
    pads = [sum(p) for p in padding]
    space = [(i - 1) * s - k + 2 + p for i, k, s, p in zip(lhs_t[2:], rhs_t[2:], window_strides, pads)]
    return _untake((lhs_t[0], rhs_t[0], *space), out_perm)


def reduce_window_shape_tuple(operand_shape: Sequence[int], window_dimensions: Sequence[int],
                              window_strides: Sequence[int], padding: Sequence,
                              base_dilation: Optional[Sequence] = None,
                              window_dilation: Optional[Sequence] = None) -> tuple:
    if base_dilation is not None:
        operand_shape = [0 if d == 0 else 1 + b * (d - 1) for d, b in zip(operand_shape, base_dilation)]
    if window_dilation is not None:
        window_dimensions = [0 if d == 0 else 1 + w * (d - 1) for d, w in zip(window_dimensions, window_dilation)]
    padded = [d + lo + hi for d, (lo, hi) in zip(operand_shape, padding)]
    return tuple(_stride_dim(d, w, s) for d, w, s in zip(padded, window_dimensions, window_strides))

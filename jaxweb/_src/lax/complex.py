"""The complex-number primitives: `complex`, `real`, `imag`, `conj`, with their rules.

Complex arrays are ordinary arrays to the lax layer (structural primitives carry them
unchanged, arithmetic primitives accept them); these four are the primitives that
move between complex values and their real parts, and so the ones the conjugation
convention of autodiff rests on. Their transposes are those of real-linear maps
(JAX's): the cotangent of `real(x)` is `complex(ct, 0)`, of `imag(x)` is
`complex(0, -ct)`, of `complex(x, y)` is `(real(ct), -imag(ct))`; so `grad` of a
real-valued function of complex inputs is the conjugate of the steepest-ascent
direction, as in JAX. FFTs (jnp.fft) are built on these.
"""
from __future__ import annotations

__all__ = ["complex", "real", "imag", "conj", "complex_p", "real_p", "imag_p", "conj_p"]

from typing import Any

from .. import core, dtypes
from ..compiler import graph
from ..dispatch import def_lowering
from ..interpreters import rules as R
from . import base
from .elementwise import _linear_transpose, _promote_scalars, full_like, neg


def _complex_operand(name: str, x: core.ShapedArray) -> None:
    base.check_dtype(name, x, "c")


# ---------------------------------------------------------------- complex
complex_p = core.Primitive("complex")


@core.def_abstract_eval(complex_p)
def _complex_abstract(x, y):
    for i, a in enumerate((x, y)):
        if a.dtype not in (dtypes.float32, dtypes.float64):
            raise TypeError(f"complex does not accept dtype {a.dtype.name} at position {i}. Accepted "
                            f"dtypes at position {i} are subtypes of float32, float64.")
    base.check_same("complex", [x, y])
    return x.update(dtype=dtypes.complex_of(x.dtype), weak_type=x.weak_type and y.weak_type)


def_lowering(complex_p)(lambda x, y: graph.make_complex(x, y))
R.defbroadcasting(complex_p)
R.deflinear(complex_p, _linear_transpose(lambda ct, x, y: real(ct), lambda ct, x, y: neg(imag(ct))))


def complex(x: Any, y: Any) -> Any:  # noqa: A001  (lax's name)
    """`lax.complex`: x + i y from two float arrays of one dtype."""
    return complex_p.bind(*_promote_scalars(x, y))


# ---------------------------------------------------------------- real, imag
def _part_primitive(name: str) -> core.Primitive:
    prim = core.Primitive(name)

    @core.def_abstract_eval(prim)
    def _abstract(x):
        _complex_operand(name, x)
        return x.update(dtype=dtypes.real_part_dtype(x.dtype))

    def_lowering(prim)(lambda x: graph.alu(name, x))
    R.defvectorized(prim)
    return prim


real_p = _part_primitive("real")
imag_p = _part_primitive("imag")


def _zeros(ct: Any) -> Any:
    """Strongly typed zeros (JAX's transposes use a numpy zero: the cotangent is not weak)."""
    return full_like(ct, 0, core.get_aval(ct).dtype)


R.deflinear(real_p, _linear_transpose(lambda ct, x: complex(ct, _zeros(ct))))
R.deflinear(imag_p, _linear_transpose(lambda ct, x: complex(_zeros(ct), neg(ct))))


def real(x: Any) -> Any:
    """`lax.real`: the real part of a complex array."""
    return real_p.bind(x)


def imag(x: Any) -> Any:
    """`lax.imag`: the imaginary part of a complex array."""
    return imag_p.bind(x)


# ---------------------------------------------------------------- conj
conj_p = core.Primitive("conj")


@core.def_abstract_eval(conj_p)
def _conj_abstract(x, *, input_dtype):
    base.check_dtype("conj", x, "fc")
    return x.update(dtype=dtypes.complex_of(x.dtype))


@def_lowering(conj_p)
def _conj_lower(x, *, input_dtype):
    return graph.alu("conj", x) if x.dtype.kind == "c" else x.cast(dtypes.complex_of(x.dtype))


def _conj_transpose(ct, x, *, input_dtype):
    """The transpose of conj is conj; of a real input's conj (a cast), the real part."""
    if isinstance(ct, R.Zero):
        return [R.Zero(x.aval)]
    out = conj(ct)
    return [out if dtypes.dtype(input_dtype).kind == "c" else real(out)]


R.deflinear(conj_p, _conj_transpose)
R.defvectorized(conj_p)


def conj(x: Any) -> Any:
    """`lax.conj`: the complex conjugate (complex for real input too, as in JAX)."""
    return conj_p.bind(x, input_dtype=core.get_aval(x).dtype)

"""`jaxweb.numpy`: JAX's numpy API. Each family module lists its public names in `__all__`."""
from jaxweb._src import dtypes as _dtypes
from jaxweb._src.array import ArrayType as ndarray
from jaxweb._src.dtypes import (
    DType as _DType, bfloat16, bool_, complex64, complex128, finfo, float16, float32, float64,
    floating, generic, iinfo, inexact, int8, int16, int32, int64, integer, issubdtype, number,
    promote_types, result_type, signedinteger, uint8, uint16, uint32, uint64, unsignedinteger,
    complexfloating, character, flexible)
from jaxweb._src.dtypes import dtype
from jaxweb._src.numpy._modules import *  # noqa: F401,F403  (all jnp functions)

bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, \
    float64, complex64, complex128 = (d.type for d in (
        bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16,
        float32, float64, complex64, complex128))
bool = bool_  # noqa: A001  (jnp.bool, as in JAX)
float_ = float64 if False else float32
int_ = int32
uint = uint32
single, double, csingle, cdouble, complex_ = float32, float64, complex64, complex128, complex128

import math as _math

pi, e, inf, nan, euler_gamma = _math.pi, _math.e, _math.inf, _math.nan, 0.5772156649015329
newaxis = None
from jaxweb.numpy import linalg  # noqa: E402,F401  (jnp.linalg)
from jaxweb.numpy import fft  # noqa: E402,F401  (jnp.fft)

"""`jax.numpy.linalg`: linear algebra on (stacks of) real and complex matrices, written with jnp so it
batches, jits, differentiates and runs on every device (see jaxweb/_src/numpy/linalg_*)."""
from jaxweb._src.numpy.linalg_factor import (SlogdetResult, cholesky, det, inv, matrix_power, multi_dot,
                                             slogdet, solve, tensorinv, tensorsolve)
from jaxweb._src.numpy.linalg_norms import matrix_norm, norm, vector_norm
from jaxweb._src.numpy.linalg_spectral import (EighResult, QRResult, SVDResult, cond, eig, eigh, eigvals,
                                               eigvalsh, lstsq, matrix_rank, pinv, qr, svd, svdvals)
from jaxweb._src.numpy.linalg_ops import cross, matmul, outer, tensordot, vecdot
from jaxweb._src.numpy.shape import diagonal as _diagonal, matrix_transpose, trace as _trace


def diagonal(x, /, *, offset: int = 0):
    """`jnp.linalg.diagonal` (array API): the diagonals of the last two axes."""
    return _diagonal(x, offset, axis1=-2, axis2=-1)


def trace(x, /, *, offset: int = 0, dtype=None):
    """`jnp.linalg.trace` (array API): the traces of the last two axes."""
    return _trace(x, offset, axis1=-2, axis2=-1, dtype=dtype)


__all__ = ["EighResult", "QRResult", "SVDResult", "SlogdetResult", "cholesky", "cond", "cross", "det",
           "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace",
           "vecdot", "vector_norm"]

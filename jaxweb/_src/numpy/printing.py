"""numpy's printing helpers for Arrays: array_repr, array_str and print options.

Options are numpy's when numpy is loaded (jaxweb formats through it, as JAX does);
without numpy they are kept here, so `printoptions` still works as a context manager.
"""
from __future__ import annotations

__all__ = ["array_repr", "array_str", "get_printoptions", "set_printoptions", "printoptions",
           "ComplexWarning"]

import contextlib
from typing import Any, Iterator

from .. import hostdata
from .util import ensure_array

_OPTIONS = {"edgeitems": 3, "threshold": 1000, "floatmode": "maxprec", "precision": 8,
            "suppress": False, "linewidth": 75, "nanstr": "nan", "infstr": "inf", "sign": "-",
            "formatter": None, "legacy": False, "override_repr": None}


class ComplexWarning(RuntimeWarning):
    """numpy's warning for discarding an imaginary part."""


def array_repr(arr: Any, max_line_width: int | None = None, precision: int | None = None,
               suppress_small: bool | None = None) -> str:
    """`jnp.array_repr`: repr(Array) of arr."""
    return repr(ensure_array(arr))


def array_str(a: Any, max_line_width: int | None = None, precision: int | None = None,
              suppress_small: bool | None = None) -> str:
    """`jnp.array_str`: str(Array) of a."""
    return str(ensure_array(a))


def get_printoptions() -> dict:
    """`jnp.get_printoptions`: numpy's current print options."""
    np = hostdata.numpy_or_none()
    return np.get_printoptions() if np is not None else dict(_OPTIONS)


def set_printoptions(**kwargs: Any) -> None:
    """`jnp.set_printoptions`: set numpy's print options (kept locally without numpy)."""
    np = hostdata.numpy_or_none()
    if np is not None:
        np.set_printoptions(**kwargs)
    unknown = set(kwargs) - set(_OPTIONS)
    if unknown:
        raise TypeError(f"set_printoptions() got unexpected keyword arguments {sorted(unknown)}")
    _OPTIONS.update(kwargs)


@contextlib.contextmanager
def printoptions(**kwargs: Any) -> Iterator[dict]:
    """`jnp.printoptions`: print options for the duration of a with block."""
    old = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield get_printoptions()
    finally:
        set_printoptions(**{k: v for k, v in old.items() if k in _OPTIONS})

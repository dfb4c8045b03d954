"""Runtime errors of devices, as JAX raises them.

JAX reports a device failure as `jax.errors.JaxRuntimeError` (XLA's runtime
error) with a message that starts with an absl status code, e.g.
`RESOURCE_EXHAUSTED: Out of memory while trying to allocate 4294967296 bytes.`
Users catch the type and read the code; jaxweb does the same. Kept free of
imports so backends at the bottom of the layer stack can raise these.
"""
from __future__ import annotations


class JaxRuntimeError(RuntimeError):
    """A device-side failure (`jax.errors.JaxRuntimeError`); message `CODE: detail`."""


class ResourceExhaustedError(JaxRuntimeError):
    """Out of device memory. The device stays usable: nothing was allocated.

    `nbytes` is what was asked, `available` the largest allocation that could
    succeed now, `in_use`/`limit` the device's bytes in use and its ceiling.
    `what` names the request (operation, dtype and shape) when the caller knows it.
    """

    def __init__(self, nbytes: int, available: int, in_use: int, limit: int,
                 device: str = "", what: str = ""):
        self.nbytes, self.available, self.in_use, self.limit = nbytes, available, in_use, limit
        self.device, self.what = device, what
        where = f" on {device}" if device else ""
        desc = f" for {what}" if what else ""
        super().__init__(
            f"RESOURCE_EXHAUSTED: Out of memory while trying to allocate {nbytes} bytes{desc}{where}: "
            f"{available} bytes available ({in_use} of {limit} bytes in use).")

    def with_context(self, what: str, device: str = "") -> "ResourceExhaustedError":
        """The same error, naming the request (and device) it failed for."""
        what = f"{what} ({self.what})" if self.what and what else (what or self.what)
        return ResourceExhaustedError(self.nbytes, self.available, self.in_use, self.limit,
                                      device or self.device, what)


class JAXTypeError(TypeError):
    """`jax.errors.JAXTypeError`: the base of JAX's type errors about traced values."""


class JAXIndexError(IndexError):
    """`jax.errors.JAXIndexError`: the base of JAX's indexing errors."""


class JaxprTypeError(TypeError):
    """`jax.errors.JaxprTypeError`: a jaxpr that does not type-check."""


class KeyReuseError(JAXTypeError):
    """`jax.errors.KeyReuseError`: raised by JAX's key-reuse checker (jax_debug_key_reuse);
    jaxweb has no such checker, so it only exists to be caught."""


class InconclusiveDimensionOperation(Exception):
    """`jax.errors.InconclusiveDimensionOperation`: a comparison of symbolic dimensions
    whose answer depends on their values (shape polymorphism)."""

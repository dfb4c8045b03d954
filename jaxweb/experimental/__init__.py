"""`jaxweb.experimental`: the jax.experimental pieces programs reach for — `ode.odeint`
(`import jaxweb.experimental.ode`, or `jaxweb.experimental.ode` after importing this
package). Multi-device, Pallas and export-related modules do not apply in a browser tab."""

_SUBMODULES = frozenset({"ode"})


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib  # noqa: PLC0415
        return importlib.import_module(f"jaxweb.experimental.{name}")
    raise AttributeError(f"module 'jaxweb.experimental' has no attribute {name!r}")

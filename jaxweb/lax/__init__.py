"""`jaxweb.lax`: the primitives' user-facing functions. Each family module lists `__all__`."""
from jaxweb._src.lax._modules import *  # noqa: F401,F403
from jaxweb._src.lax.collectives import *  # noqa: F401,F403
from jaxweb._src.lax.ad_util import stop_gradient_p  # noqa: F401
from jaxweb._src.lax.collectives import all_gather_p, ppermute_p  # noqa: F401
from jaxweb._src.lax.parallel import axis_index_p, pmax_p, pmin_p, psum_p  # noqa: F401
from jaxweb.lax import linalg  # noqa: E402,F401  (`jax.lax.linalg` is an attribute after `import jax`)

#: lax's special functions are implemented beside jax.scipy.special (a floor above lax), and
#: custom_root/custom_linear_solve beside jax.vjp:
#: name -> (module, attribute), imported on first use so that `import jaxweb` stays small.
_SPECIAL = {**{n: ("jaxweb._src.scipy.lax_special", f"lax_{n}") for n in ("igamma", "igammac", "polygamma", "zeta",
                                                                          "betainc", "igamma_grad_a")},
            **{n: ("jaxweb._src.scipy.lax_special", n) for n in ("igamma_p", "igammac_p", "igamma_grad_a_p",
                                                                   "polygamma_p", "zeta_p",
                                                                   "regularized_incomplete_beta_p")},
            "random_gamma_grad": ("jaxweb._src.scipy.lax_special", "random_gamma_grad"),
            # implicit-differentiation solvers use jax.vjp/jvp (the api floor, above lax)
            "custom_root": ("jaxweb._src.solves", "custom_root"),
            "custom_linear_solve": ("jaxweb._src.solves", "custom_linear_solve")}


def __getattr__(name: str):
    if name in _SPECIAL:
        import importlib  # noqa: PLC0415
        module, attr = _SPECIAL[name]
        value = getattr(importlib.import_module(module), attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'jaxweb.lax' has no attribute {name!r}")

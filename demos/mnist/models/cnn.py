# A small CNN: two 3x3 convolutions with stride 2 (28 -> 14 -> 7), then two dense layers.
# The page calls init(key) once and apply(params, x); x is float32 (batch, 784) in 0..1.
import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

CHANNELS = (16, 32)
HIDDEN = 128


def init(key):
    k1, k2, k3, k4 = jax.random.split(key, 4)
    c1, c2 = CHANNELS
    return {
        "conv1": {"w": jax.random.normal(k1, (3, 3, 1, c1)) * jnp.sqrt(2.0 / 9), "b": jnp.zeros(c1)},
        "conv2": {"w": jax.random.normal(k2, (3, 3, c1, c2)) * jnp.sqrt(2.0 / (9 * c1)), "b": jnp.zeros(c2)},
        "hidden": {"w": jax.random.normal(k3, (7 * 7 * c2, HIDDEN)) * jnp.sqrt(2.0 / (49 * c2)),
                   "b": jnp.zeros(HIDDEN)},
        "dense": {"w": jax.random.normal(k4, (HIDDEN, 10)) * jnp.sqrt(1.0 / HIDDEN), "b": jnp.zeros(10)},
    }


def conv(x, p):
    y = lax.conv_general_dilated(x, p["w"], (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jax.nn.relu(y + p["b"])


def apply(params, x):
    x = x.reshape(x.shape[0], 28, 28, 1)
    x = conv(conv(x, params["conv1"]), params["conv2"])
    x = x.reshape(x.shape[0], -1)
    x = jax.nn.relu(x @ params["hidden"]["w"] + params["hidden"]["b"])
    return x @ params["dense"]["w"] + params["dense"]["b"]

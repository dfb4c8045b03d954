# MLP 784-256-128-10. The page calls init(key) once and apply(params, x) in a jitted
# training step; x is a batch of images, float32 (batch, 784) in 0..1. Edit and press
# "Apply & reset": the page re-runs this code without reloading.
import jaxweb as jax
import jaxweb.numpy as jnp

SIZES = [784, 256, 128, 10]


def init(key):
    params = []
    for m, n in zip(SIZES[:-1], SIZES[1:]):
        key, sub = jax.random.split(key)
        w = jax.random.normal(sub, (m, n)) * jnp.sqrt(2.0 / m)  # He initialisation
        params.append({"w": w, "b": jnp.zeros(n)})
    return params


def apply(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    last = params[-1]
    return x @ last["w"] + last["b"]  # logits

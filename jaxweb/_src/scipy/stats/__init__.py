"""Implementation of `jaxweb.scipy.stats`: one module per distribution, as JAX's."""

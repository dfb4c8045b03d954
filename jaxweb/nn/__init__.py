"""`jaxweb.nn`: JAX's neural-network functions (activations, softmax, attention, ...)."""
from jaxweb._src.nn.activations import (  # noqa: F401
    celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity, leaky_relu,
    log1mexp, log_sigmoid, mish, relu, relu6, selu, sigmoid, silu, soft_sign, softplus,
    sparse_plus, sparse_sigmoid, squareplus, swish, tanh)
from jaxweb._src.nn.softmax import (  # noqa: F401
    log_softmax, logmeanexp, logsumexp, one_hot, softmax, standardize)
from jaxweb._src.nn.attention import dot_product_attention  # noqa: F401
from jaxweb.nn import initializers  # noqa: F401,E402

"""Bad input raises JAX's exception type with the key words of JAX's message (issue 9).

One row per case: a label, the call, the exception type JAX 0.10 raises, and a regular
expression that JAX's message also matches (checked by hand against JAX 0.10.2). Plain
Python values only, so the table is cheap and the same on every device.
"""
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax

pytestmark = pytest.mark.pyodide

_SHAPES = "Shapes must be 1D sequences of concrete values of integer type"
_NONNEG = "shape must have every element be nonnegative"

CASES = [
    # creation: None, bad and negative shapes (issue 9)
    ("array(None)", lambda: jnp.array(None), ValueError, "None is not a valid value for jnp.array"),
    ("asarray([1, None])", lambda: jnp.asarray([1, None]), ValueError, "None is not a valid value"),
    ("zeros((-1,))", lambda: jnp.zeros((-1,)), TypeError, _NONNEG),
    ("full((-2, 3))", lambda: jnp.full((-2, 3), 1.0), TypeError, _NONNEG),
    ("empty(-1)", lambda: jnp.empty(-1), TypeError, _NONNEG),
    ("broadcast_to negative", lambda: jnp.broadcast_to(1.0, (-1,)), TypeError, _NONNEG),
    ("lax.full negative", lambda: lax.full((-1,), 0.0), TypeError, _NONNEG),
    ("ones([2, 'a'])", lambda: jnp.ones([2, "a"]), TypeError, _SHAPES + r", got \[2, 'a'\]"),
    ("zeros(3.5)", lambda: jnp.zeros(3.5), TypeError, _SHAPES + r", got \(3\.5,\)"),
    ("ones(None)", lambda: jnp.ones(None), TypeError, _SHAPES + r", got \(None,\)"),
    ("ones((2.,))", lambda: jnp.ones((2.0,)), TypeError, _SHAPES),
    ("traced shape", lambda: jax.jit(lambda n: jnp.zeros(n))(3), TypeError, _SHAPES + r"(.|\n)*static_argnums"),
    ("traced reshape", lambda: jax.jit(lambda a: a.reshape(a.sum()))(jnp.ones(2, jnp.int32)), TypeError, _SHAPES),
    ("zeros dtype 'foo'", lambda: jnp.zeros(2, "foo"), TypeError, "data type 'foo' not understood"),
    ("arange(None)", lambda: jnp.arange(None), TypeError, "must be real number, not NoneType"),
    ("eye(-1)", lambda: jnp.eye(-1), ValueError, "negative dimensions are not allowed"),
    ("linspace num -1", lambda: jnp.linspace(0, 1, -1), ValueError, "Number of samples, -1, must be non-negative"),
    # devices
    ("device_put(x, 42)", lambda: jax.device_put(jnp.ones(2), 42), ValueError,
     "only accepts `None`, `jax.sharding.Sharding`, `jax.Device`.*Received invalid value: 42"),
    # differentiation (issue 9)
    ("grad of tuple", lambda: jax.grad(lambda x: (x, x))(1.0), TypeError,
     "Gradient only defined for scalar-output functions. Output was"),
    ("grad of None", lambda: jax.grad(lambda x: None)(1.0), TypeError,
     "Gradient only defined for scalar-output functions. Output was None"),
    ("grad of vector", lambda: jax.grad(lambda x: x * jnp.ones(2))(1.0), TypeError,
     r"Gradient only defined for scalar-output functions. Output had shape: \(2,\)"),
    ("grad of int input", lambda: jax.grad(lambda x: x)(1), TypeError,
     "grad requires real- or complex-valued inputs"),
    ("jvp tangent dtype", lambda: jax.jvp(lambda x: x, (1.0,), (1,)), TypeError,
     "primal and tangent arguments to jax.jvp do not match"),
    ("jvp not tuples", lambda: jax.jvp(lambda x: x, [1.0], 1.0), TypeError,
     "tangent arguments to jax.jvp must be tuples or lists"),
    ("jvp shapes", lambda: jax.jvp(lambda x: x, (jnp.ones(2),), (jnp.ones(3),)), ValueError,
     "jvp called with different primal and tangent shapes"),
    ("pure_callback grad", lambda: jax.grad(lambda x: jax.pure_callback(
        lambda y: y, jax.ShapeDtypeStruct((), jnp.float32), x))(1.0), ValueError,
     "Pure callbacks do not support JVP"),
    # tracing
    ("bool of tracer", lambda: jax.jit(lambda x: bool(x))(1.0), jax.errors.TracerBoolConversionError,
     "Abstract tracer value encountered where concrete value is expected"),
    ("int of tracer", lambda: jax.jit(lambda x: int(x))(1.0), jax.errors.ConcretizationTypeError,
     "Abstract tracer value encountered"),
    ("jit string arg", lambda: jax.jit(lambda x: x)("a"), TypeError,
     "Error interpreting argument to .* as an abstract array"),
    ("jit bad static_argnums", lambda: jax.jit(lambda x: x, static_argnums=3)(1.0), ValueError,
     r"Jitted function has static_argnums=\(3,\), but only accepts 1 positional arguments"),
    ("boolean mask under jit", lambda: jax.jit(lambda x: x[x > 0])(jnp.ones(2)),
     jax.errors.NonConcreteBooleanIndexError, "Array boolean indices must be concrete"),
    ("vmap of 0-d", lambda: jax.vmap(lambda x: x)(jnp.ones(())), ValueError,
     "vmap was requested to map its argument along axis 0"),
    ("vmap sizes differ", lambda: jax.vmap(lambda x, y: x + y)(jnp.ones(2), jnp.ones(3)), ValueError,
     "vmap got inconsistent sizes for array axes to be mapped"),
    # broadcasting and shapes
    ("add ranks differ", lambda: jnp.ones((2, 3)) + jnp.ones((4,)), ValueError,
     r"Incompatible shapes for broadcasting: shapes=\[\(2, 3\), \(4,\)\]"),
    ("add same rank", lambda: jnp.sin(jnp.ones(2)) + jnp.ones(3), TypeError,
     r"add got incompatible shapes for broadcasting: \(2,\), \(3,\)"),
    ("lax.add dtypes", lambda: lax.add(jnp.ones(2), jnp.ones(2, jnp.int32)), TypeError,
     "lax.add requires arguments to have the same dtypes, got float32, int32"),
    ("reshape size", lambda: jnp.ones((2, 3)).reshape(4), TypeError, "cannot reshape array of shape"),
    ("matmul shapes", lambda: jnp.ones((2, 3)) @ jnp.ones((4,)), TypeError, "dot_general requires contracting dimensions"),
    ("sum axis", lambda: jnp.sum(jnp.ones(3), axis=2), ValueError, "axis 2 is out of bounds for array of dimension 1"),
    ("transpose repeated", lambda: jnp.transpose(jnp.ones((2, 3)), (0, 0)), TypeError,
     "transpose permutation isn't a permutation of operand dimensions"),
    ("concatenate ranks", lambda: jnp.concatenate([jnp.ones(2), jnp.ones((2, 2))]), TypeError,
     "Cannot concatenate arrays with different numbers of dimensions"),
    ("concatenate nothing", lambda: jnp.concatenate([]), ValueError, "Need at least one array to concatenate"),
    ("squeeze non-1", lambda: jnp.squeeze(jnp.ones((2, 3)), 0), ValueError, "cannot select an axis to squeeze out"),
    ("split unequal", lambda: jnp.split(jnp.ones(5), 2), ValueError, "array split does not result in an equal division"),
    ("where one of x, y", lambda: jnp.where(jnp.ones(2) > 0, 1), TypeError,
     "where requires ndarray or scalar arguments, got <class 'NoneType'> at position 2"),
    ("len of 0-d", lambda: len(jnp.array(1.0)), TypeError, "len\\(\\) of unsized object"),
    ("float of vector", lambda: float(jnp.ones(2)), TypeError, "Only scalar arrays can be converted to Python scalars"),
    # indexing
    ("float index", lambda: jnp.ones(3)[1.5], TypeError, "Indexer must have integer or boolean type"),
    ("take float", lambda: jnp.take(jnp.ones(3), 1.5), ValueError, "indices must have an integer type"),
    ("fill_diagonal inplace", lambda: jnp.fill_diagonal(jnp.zeros((2, 2)), 1.0), NotImplementedError,
     "JAX arrays are immutable, must use inplace=False"),
    ("put inplace", lambda: jnp.put(jnp.zeros(3), 0, 1.0), ValueError, "cannot modify arrays in-place"),
    # pytrees
    ("mixed dict keys", lambda: jax.tree_util.tree_flatten({1: 2, "a": 3}), ValueError,
     "Comparator raised exception while sorting pytree dictionary keys"),
    ("tree_map structures", lambda: jax.tree.map(lambda a, b: a + b, (1, 2), (1, 2, 3)), ValueError,
     "Tuple arity mismatch"),
    # library functions
    ("select empty", lambda: jnp.select([], []), ValueError, "condlist must be non-empty"),
    ("select lengths", lambda: jnp.select([True], []), ValueError, "condlist must have length equal to choicelist"),
    ("piecewise count", lambda: jnp.piecewise(jnp.ones(3), [jnp.ones(3) > 0], [1, 2, 3]), ValueError,
     r"with 1 condition\(s\), either 1 or 2 functions are expected; got 3"),
    ("gcd floats", lambda: jnp.gcd(1.0, 2.0), ValueError, "Arguments to jax.numpy.gcd must be integers"),
    ("ldexp float exponent", lambda: jnp.ldexp(1.0, 2.0), ValueError, "ldexp not supported for input types"),
    ("interp sizes", lambda: jnp.interp(jnp.ones(2), jnp.ones(3), jnp.ones(2)), ValueError,
     "xp and fp must be one-dimensional arrays of equal size"),
    ("interp left string", lambda: jnp.interp(1.0, jnp.ones(2), jnp.ones(2), left="x"), ValueError,
     "the only valid string value of `left` is 'extrapolate'"),
    ("cross dims", lambda: jnp.cross(jnp.ones(4), jnp.ones(4)), ValueError, "Dimension must be either 2 or 3"),
    ("polyder negative", lambda: jnp.polyder(jnp.ones(3), -1), ValueError, "Order of derivative must be positive"),
    ("polyfit 2-d x", lambda: jnp.polyfit(jnp.ones((2, 2)), jnp.ones(2), 1), TypeError, "expected 1D vector for x"),
    ("gradient too small", lambda: jnp.gradient(jnp.ones(1)), ValueError, "at least 2 elements are required"),
    ("histogramdd weights", lambda: jnp.histogramdd(jnp.ones((3, 2)), weights=jnp.ones(2)), ValueError,
     "should have one weight for each sample"),
    ("packbits floats", lambda: jnp.packbits(jnp.ones(3, jnp.float32)), TypeError,
     "Expected an input array of integer or boolean data type"),
    ("unpackbits int32", lambda: jnp.unpackbits(jnp.ones(3, jnp.int32)), TypeError,
     "Expected an input array of unsigned byte data type"),
    ("quantile method", lambda: jnp.quantile(jnp.ones(3), 0.5, method="bogus"), ValueError,
     "method can only be 'linear', 'lower', 'higher', 'midpoint', 'nearest' or 'inverted_cdf'"),
    ("quantile weights method", lambda: jnp.quantile(jnp.ones(3), 0.5, weights=jnp.ones(3)), NotImplementedError,
     "Only method 'inverted_cdf' supports weights"),
    ("vectorize excluded", lambda: jnp.vectorize(lambda x: x, excluded={-1})(1.0), ValueError,
     "contains negative numbers"),
    ("can_cast python int", lambda: jnp.can_cast(1, jnp.int8), TypeError,
     "can_cast\\(\\) does not support Python ints"),
    ("isdtype kind", lambda: jnp.isdtype(jnp.float32, "bogus"), ValueError, "Unrecognized kind='bogus'"),
    ("fromiter", lambda: jnp.fromiter([1]), NotImplementedError, r"jnp.fromiter\(\) is not implemented"),
    ("kaiser negative", lambda: jnp.kaiser(-1, 2.0), TypeError, _NONNEG),
    ("tile reps", lambda: lax.tile(jnp.ones((2, 2)), (2,)), TypeError, "reps length must be equal to the ndim"),
    ("debug.print missing arg", lambda: jax.debug.print("{} {}", 1), IndexError, "index out of range"),
    ("debug.print f-string", lambda: jax.debug.print("{x}", y=1), KeyError, "x"),
    ("debug.callback non-callable", lambda: jax.debug.callback(3), TypeError,
     "first argument to jax.debug.callback must be callable"),
    ("pure_callback vmap_method", lambda: jax.pure_callback(lambda x: x, jax.ShapeDtypeStruct((), jnp.float32), 1.0,
                                                            vmap_method="bogus"), ValueError,
     "vmap_method must be on of the allowed methods"),
    ("strict promotion", lambda: _strict(lambda: jnp.zeros(2, jnp.int8) + jnp.zeros(2, jnp.int16)),
     jax.dtypes.TypePromotionError, "no available implicit dtype promotion path when jax_numpy_dtype_promotion=strict"),
]


def _strict(f):
    with jax.numpy_dtype_promotion("strict"):
        return f()


@pytest.mark.parametrize("label,call,exc,words", CASES, ids=[c[0] for c in CASES])
def test_bad_input_raises_like_jax(label, call, exc, words):
    with pytest.raises(exc, match=words):
        call()

"""lax structural primitives and jnp shape functions against numpy."""
import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


rng = np.random.RandomState(0)


def R(*shape, dtype=np.float32):
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.rand(*shape) > 0.5
    return rng.randint(-50, 50, size=shape).astype(dtype)


def eq(actual, expected):
    a = np.asarray(actual)
    e = np.asarray(expected)
    assert a.shape == e.shape, (a.shape, e.shape)
    assert a.dtype == e.dtype, (a.dtype, e.dtype)
    np.testing.assert_array_equal(a, e)


def np_lax_pad(x, v, cfg):
    out = x
    for ax, (lo, hi, it) in enumerate(cfg):
        n = out.shape[ax]
        if it and n > 1:
            shape = list(out.shape)
            shape[ax] = n + (n - 1) * it
            tmp = np.full(shape, v, out.dtype)
            idx = [slice(None)] * out.ndim
            idx[ax] = slice(None, None, it + 1)
            tmp[tuple(idx)] = out
            out = tmp
        widths = [(0, 0)] * out.ndim
        widths[ax] = (max(lo, 0), max(hi, 0))
        out = np.pad(out, widths, constant_values=v)
        idx = [slice(None)] * out.ndim
        idx[ax] = slice(-min(lo, 0), out.shape[ax] + min(hi, 0))
        out = out[tuple(idx)]
    return out


# ---------------------------------------------------------------- lax
@pytest.mark.parametrize("shape,new", [((2, 3), (3, 2)), ((4,), (2, 1, 2)), ((), (1, 1)), ((0, 3), (3, 0)),
                                       ((2, 3, 4), (24,))])
def test_reshape(shape, new):
    x = R(*shape)
    eq(lax.reshape(x, new), x.reshape(new))


def test_reshape_dimensions():
    x = R(2, 3, 4)
    eq(lax.reshape(x, (4, 6), (2, 0, 1)), x.transpose(2, 0, 1).reshape(4, 6))


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 1, 0), (0, 1, 2)])
def test_transpose(perm):
    x = R(2, 3, 4)
    eq(lax.transpose(x, perm), x.transpose(perm))


def test_broadcast_family():
    x = R(3, 1)
    eq(lax.broadcast_in_dim(x, (2, 3, 4), (1, 2)), np.broadcast_to(x[None], (2, 3, 4)))
    eq(lax.broadcast(x, (5,)), np.broadcast_to(x, (5, 3, 1)))
    eq(lax.broadcast_to_rank(x, 4), x.reshape(1, 1, 3, 1))
    eq(lax.broadcast_in_dim(np.float32(2.5), (2,), ()), np.full((2,), 2.5, np.float32))


def test_squeeze_expand_dims_collapse():
    x = R(1, 3, 1, 2)
    eq(lax.squeeze(x, (0, -2)), x.reshape(3, 2))
    eq(lax.expand_dims(x, (0, -1)), x[None, ..., None])
    eq(lax.collapse(x, 1, 3), x.reshape(1, 3, 2))
    eq(lax.collapse(x, 0), x.reshape(6))


@pytest.mark.parametrize("dims", [(0,), (1,), (0, 1), ()])
def test_rev(dims):
    x = R(3, 4)
    eq(lax.rev(x, dims), np.flip(x, dims) if dims else x)


@pytest.mark.parametrize("start,limit,strides", [((0, 1), (2, 3), None), ((1, 0), (3, 4), (2, 3)),
                                                 ((0, 0), (0, 4), (1, 1)), ((2, 3), (3, 4), (5, 5))])
def test_slice(start, limit, strides):
    x = R(3, 4)
    st = strides or (1, 1)
    eq(lax.slice(x, start, limit, strides),
       x[tuple(slice(s, l, k) for s, l, k in zip(start, limit, st))])


def test_slice_in_dim_index_in_dim():
    x = R(4, 5)
    eq(lax.slice_in_dim(x, 1, -1, 2, axis=1), x[:, 1:-1:2])
    eq(lax.slice_in_dim(x, None, None, 1, axis=0), x)
    eq(lax.index_in_dim(x, -1, 1), x[:, -1:])
    eq(lax.index_in_dim(x, 2, 0, keepdims=False), x[2])
    with pytest.raises(IndexError):
        lax.index_in_dim(x, 5, 1)


@pytest.mark.parametrize("cfg", [[(1, 2, 0), (0, 0, 0)], [(2, -3, 2), (1, 1, 1)], [(-1, -1, 0), (0, -2, 3)],
                                 [(0, 0, 5), (3, 0, 0)]])
@pytest.mark.parametrize("value", [0.0, -1.5, np.nan, -0.0])
def test_pad(cfg, value):
    x = R(4, 3)
    eq(lax.pad(x, np.float32(value), cfg), np_lax_pad(x, np.float32(value), cfg))


def test_pad_int_and_bool_and_empty():
    x = R(5, dtype=np.int32)
    eq(lax.pad(x, np.int32(7), [(1, 1, 1)]), np_lax_pad(x, np.int32(7), [(1, 1, 1)]))
    b = R(4, dtype=bool)
    eq(lax.pad(b, True, [(1, 0, 2)]), np_lax_pad(b, True, [(1, 0, 2)]))
    e = np.zeros((0,), np.float32)
    eq(lax.pad(e, np.float32(3), [(2, 1, 4)]), np.full((3,), 3, np.float32))


def test_concatenate():
    a, b, c = R(2, 3), R(2, 0), R(2, 5)
    eq(lax.concatenate([a, b, c], 1), np.concatenate([a, b, c], 1))
    eq(lax.concatenate([a], 0), a)
    ai, bi = R(3, dtype=np.int32), R(2, dtype=np.int32)
    eq(lax.concatenate([ai, bi, ai], 0), np.concatenate([ai, bi, ai]))
    nz = np.array([-0.0, np.nan, np.inf], np.float32)
    eq(lax.concatenate([nz, nz], 0), np.concatenate([nz, nz]))


def test_copy():
    x = R(3)
    eq(lax.copy(x), x)


# ---------------------------------------------------------------- lax errors
@pytest.mark.parametrize("fn,err,msg", [
    (lambda x: lax.squeeze(x, (0,)), ValueError, "cannot select an axis to squeeze out"),
    (lambda x: lax.squeeze(x, (5,)), ValueError, "axis 5 is out of bounds for array of dimension 2"),
    (lambda x: lax.rev(x, (0, 0)), TypeError, "rev dimensions must be unique, got (0, 0)."),
    (lambda x: lax.rev(x, (3,)), TypeError, "rev dimensions must all be less than operand ndim"),
    (lambda x: lax.slice(x, (0, 0), (3, 3)), TypeError, "slice limit_indices must be less than or equal"),
    (lambda x: lax.slice(x, (2, 0), (1, 3)), TypeError, "greater than or equal to start_indices"),
    (lambda x: lax.slice(x, (0, 0), (2, 3), (1,)), TypeError, "slice strides must have length"),
    (lambda x: lax.pad(x, 0., [(0, 0, 0)]), ValueError, "length of padding_config must equal"),
    (lambda x: lax.pad(x, jnp.zeros(2), [(0, 0, 0)] * 2), ValueError, "padding_value must be a scalar"),
    (lambda x: lax.pad(x, jnp.int32(0), [(0, 0, 0)] * 2), TypeError,
     "pad operand and padding_value must be same dtype: got float32 and int32."),
    (lambda x: lax.pad(x, 0., [(0, 0, -1), (0, 0, 0)]), ValueError, "interior padding in padding_config"),
    (lambda x: lax.pad(x, 0., [(-3, 0, 0), (0, 0, 0)]), ValueError, "Dimension size after padding is not at least 0"),
    (lambda x: lax.concatenate([], 0), ValueError, "concatenate requires a non-empty sequences of arrays"),
    (lambda x: lax.concatenate([x, jnp.ones(3)], 0), TypeError, "different numbers of dimensions"),
    (lambda x: lax.concatenate([x, jnp.ones((2, 4))], 0), TypeError, "differ in dimensions other than"),
    (lambda x: lax.concatenate([x, x], 2), TypeError, "concatenate dimension out of bounds"),
    (lambda x: lax.concatenate([x, x.astype(jnp.int32)], 0), TypeError,
     "lax.concatenate requires arguments to have the same dtypes, got float32, int32."),
    (lambda x: lax.transpose(x, (0, 0)), TypeError, "transpose permutation isn't a permutation"),
    (lambda x: lax.reshape(x, (4,)), TypeError, "reshape total size must be unchanged"),
    (lambda x: lax.broadcast_in_dim(x, (2, 4), (0, 1)), TypeError, "broadcast_in_dim operand dimension sizes"),
    (lambda x: lax.expand_dims(x, (0, 0)), ValueError, "repeated axis in lax.expand_dims"),
])
def test_lax_errors(fn, err, msg):
    with pytest.raises(err) as e:
        fn(jnp.ones((2, 3)))
    assert msg in str(e.value)


# ---------------------------------------------------------------- jnp shape functions
def test_jnp_reshape_ravel():
    x = R(2, 3, 4)
    eq(jnp.reshape(x, (4, -1)), x.reshape(4, -1))
    eq(jnp.reshape(x, -1), x.reshape(-1))
    eq(jnp.reshape(x, (3, -1), order="F"), x.reshape((3, -1), order="F"))
    eq(jnp.ravel(x), x.ravel())
    eq(jnp.ravel(x, order="F"), x.ravel(order="F"))
    eq(jnp.asarray(x).reshape(6, 4), x.reshape(6, 4))
    eq(jnp.asarray(x).reshape((6, 4)), x.reshape(6, 4))
    eq(jnp.reshape(np.float32(3), (1, 1)), np.float32(3).reshape(1, 1))


@pytest.mark.parametrize("shape,msg", [((4,), "cannot reshape array of shape (2, 3) (size 6) into shape (4,) (size 4)"),
                                       ((-1, -1), "can only specify one unknown axis size"),
                                       ((4, -1), "does not evenly divide 6")])
def test_jnp_reshape_errors(shape, msg):
    with pytest.raises(TypeError) as e:
        jnp.reshape(jnp.ones((2, 3)), shape)
    assert msg in str(e.value)


def test_transposes():
    x = R(2, 3, 4)
    eq(jnp.transpose(x), x.T)
    eq(jnp.transpose(x, (-1, 0, 1)), np.transpose(x, (-1, 0, 1)))
    eq(jnp.asarray(x).T, x.T)
    eq(jnp.matrix_transpose(x), np.swapaxes(x, -1, -2))
    eq(jnp.asarray(x).mT, np.swapaxes(x, -1, -2))
    eq(jnp.moveaxis(x, 0, -1), np.moveaxis(x, 0, -1))
    eq(jnp.moveaxis(x, [0, 1], [2, 0]), np.moveaxis(x, [0, 1], [2, 0]))
    eq(jnp.swapaxes(x, 0, 2), np.swapaxes(x, 0, 2))
    eq(jnp.permute_dims(x, (1, 2, 0)), np.transpose(x, (1, 2, 0)))
    with pytest.raises(ValueError, match="at least two-dimensional"):
        jnp.matrix_transpose(jnp.ones(3))
    with pytest.raises(ValueError, match="out of bounds"):
        jnp.moveaxis(x, 0, 5)


def test_expand_squeeze():
    x = R(1, 3, 1)
    eq(jnp.expand_dims(x, 0), x[None])
    eq(jnp.expand_dims(x, (0, -1)), np.expand_dims(x, (0, -1)))
    eq(jnp.squeeze(x), x.squeeze())
    eq(jnp.squeeze(x, -1), x.squeeze(-1))
    eq(jnp.asarray(x).squeeze(0), x.squeeze(0))
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        jnp.squeeze(x, 1)


def test_broadcasting_functions():
    x, y = R(3, 1), R(4)
    eq(jnp.broadcast_to(x, (2, 3, 4)), np.broadcast_to(x, (2, 3, 4)))
    for a, e in zip(jnp.broadcast_arrays(x, y), np.broadcast_arrays(x, y)):
        eq(a, e)
    assert jnp.broadcast_shapes((3, 1), (4,), ()) == (3, 4)
    with pytest.raises(ValueError, match="Incompatible shapes for broadcasting"):
        jnp.broadcast_shapes((2, 3), (3, 3))
    with pytest.raises(ValueError, match="Incompatible types for broadcasting"):
        jnp.broadcast_to(jnp.ones((2, 3)), (3, 3))


def test_concatenate_stack():
    a, b = R(2, 3), R(2, 3, dtype=np.int32)
    eq(jnp.concatenate([a, b]), np.concatenate([a, b.astype(np.float32)]))
    eq(jnp.concatenate([a, a], axis=None), np.concatenate([a, a], axis=None))
    eq(jnp.concatenate([a, a], axis=-1), np.concatenate([a, a], axis=-1))
    eq(jnp.concat([a, a]), np.concatenate([a, a]))
    eq(jnp.stack([a, a], axis=1), np.stack([a, a], axis=1))
    eq(jnp.stack([a, a], axis=-1), np.stack([a, a], axis=-1))
    eq(jnp.hstack([a, a]), np.hstack([a, a]))
    eq(jnp.vstack([a[0], a[1]]), np.vstack([a[0], a[1]]))
    eq(jnp.dstack([a, a]), np.dstack([a, a]))
    eq(jnp.column_stack([a[0], a[1]]), np.column_stack([a[0], a[1]]))
    eq(jnp.hstack([np.float32(1), np.float32(2)]), np.hstack([np.float32(1), np.float32(2)]))
    with pytest.raises(ValueError, match="All input arrays must have the same shape"):
        jnp.stack([a, R(2, 4)])
    with pytest.raises(TypeError, match="differ in dimensions other than"):
        jnp.concatenate([a, R(2, 4)])
    with pytest.raises(ValueError, match="Zero-dimensional"):
        jnp.concatenate([np.float32(1), np.float32(2)])


def test_atleast():
    s, v, m = np.float32(2), R(3), R(2, 3)
    for f, nf in [(jnp.atleast_1d, np.atleast_1d), (jnp.atleast_2d, np.atleast_2d), (jnp.atleast_3d, np.atleast_3d)]:
        for x in (s, v, m):
            eq(f(x), nf(x))
    assert len(jnp.atleast_2d(s, v)) == 2


@pytest.mark.parametrize("spec", [3, [1, 4], [-2], [0, 0, 7], 1])
def test_split(spec):
    x = R(6, 2)
    if spec == 3 or isinstance(spec, list):
        for a, e in zip(jnp.split(x, spec), np.split(x, spec)):
            eq(a, e)
    for a, e in zip(jnp.array_split(x, 4 if spec == 3 else spec), np.array_split(x, 4 if spec == 3 else spec)):
        eq(a, e)


def test_split_variants_and_errors():
    x = R(4, 6, 2)
    for f, nf in [(jnp.hsplit, np.hsplit), (jnp.vsplit, np.vsplit), (jnp.dsplit, np.dsplit)]:
        for a, e in zip(f(x, 2), nf(x, 2)):
            eq(a, e)
    for a, e in zip(jnp.split(x, 3, axis=1), np.split(x, 3, axis=1)):
        eq(a, e)
    with pytest.raises(ValueError, match="array split does not result in an equal division"):
        jnp.split(jnp.ones(5), 2)
    assert len(jnp.unstack(x, axis=1)) == 6
    eq(jnp.unstack(x)[1], x[1])


@pytest.mark.parametrize("reps", [2, (2, 1), (1, 2, 3), (0, 2)])
def test_tile(reps):
    x = R(2, 3)
    eq(jnp.tile(x, reps), np.tile(x, reps))


def test_repeat():
    x = R(2, 3)
    eq(jnp.repeat(x, 2), np.repeat(x, 2))
    eq(jnp.repeat(x, 3, axis=1), np.repeat(x, 3, axis=1))
    eq(jnp.repeat(x, [1, 0, 2], axis=1), np.repeat(x, [1, 0, 2], axis=1))
    eq(jnp.repeat(x, np.array([2, 1]), axis=0), np.repeat(x, [2, 1], axis=0))
    eq(jnp.repeat(np.arange(3, dtype=np.int32), np.array([1, 2, 0]), total_repeat_length=5),
       np.array([0, 1, 1, 2, 2], np.int32))
    eq(jnp.repeat(np.arange(3, dtype=np.int32), 2, total_repeat_length=5), np.array([0, 0, 1, 1, 2], np.int32))
    eq(jnp.asarray(x).repeat(2, axis=0), np.repeat(x, 2, axis=0))
    eq(jnp.repeat(x, 0, axis=1), np.repeat(x, 0, axis=1))


def test_flips_and_rot90():
    x = R(3, 4, 2)
    eq(jnp.flip(x), np.flip(x))
    eq(jnp.flip(x, (0, 2)), np.flip(x, (0, 2)))
    eq(jnp.fliplr(x), np.fliplr(x))
    eq(jnp.flipud(x), np.flipud(x))
    for k in range(-1, 5):
        eq(jnp.rot90(x, k), np.rot90(x, k))
        eq(jnp.rot90(x, k, axes=(2, 0)), np.rot90(x, k, axes=(2, 0)))


@pytest.mark.parametrize("shift,axis", [(1, None), (-7, None), (2, 0), ((1, -5), (0, 1)), (3, -1), (0, 1), (2, (0, 1))])
def test_roll(shift, axis):
    x = R(3, 4)
    eq(jnp.roll(x, shift, axis), np.roll(x, shift, axis))


def test_roll_traced_shift():
    x = R(5)
    f = jaxweb.jit(lambda x, s: jnp.roll(x, s))
    for s in (-3, 0, 2, 7):
        eq(f(x, s), np.roll(x, s))


@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "reflect", "symmetric"])
@pytest.mark.parametrize("width", [2, (1, 3), ((2, 7), (5, 0)), ((0, 0), (4, 1))])
def test_pad_modes(mode, width):
    x = R(3, 4)
    eq(jnp.pad(x, width, mode=mode), np.pad(x, width, mode=mode))


def test_pad_constant_values_and_edge_cases():
    x = R(2, 3, dtype=np.int32)
    eq(jnp.pad(x, 1, constant_values=((1, 2), (3, 4))), np.pad(x, 1, constant_values=((1, 2), (3, 4))))
    eq(jnp.pad(x, (1, 2), constant_values=9), np.pad(x, (1, 2), constant_values=9))
    eq(jnp.pad(np.arange(1.0, dtype=np.float32), 2, mode="reflect"), np.zeros(5, np.float32))
    eq(jnp.pad(np.zeros((0,), np.float32), 2), np.zeros(4, np.float32))
    with pytest.raises(ValueError, match="Cannot apply 'edge' padding to empty axis"):
        jnp.pad(jnp.zeros((0,)), 2, mode="edge")
    with pytest.raises(NotImplementedError, match="Unimplemented padding mode 'foo'"):
        jnp.pad(x, 1, mode="foo")
    with pytest.raises(ValueError, match="index can't contain negative values"):
        jnp.pad(x, -1)
    with pytest.raises(ValueError, match="unsupported shape"):
        jnp.pad(jnp.ones(3), ((1, 2), (3, 4)))


def test_diff():
    x = R(3, 5)
    eq(jnp.diff(x), np.diff(x))
    eq(jnp.diff(x, n=2, axis=0), np.diff(x, n=2, axis=0))
    eq(jnp.diff(x, prepend=np.float32(0), append=x[:, :1]), np.diff(x, prepend=np.float32(0), append=x[:, :1]))
    b = R(6, dtype=bool)
    eq(jnp.diff(b), np.diff(b))
    i = np.array([2**31 - 1, -(2**31), 5], np.int32)
    with np.errstate(over="ignore"):
        eq(jnp.diff(i), np.diff(i))
    eq(jnp.ediff1d(x, to_begin=np.array([9.0], np.float32)), np.ediff1d(x, to_begin=np.array([9.0], np.float32)))
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        jnp.diff(x, n=-1)


@pytest.mark.parametrize("k", [-4, -1, 0, 2, 5])
def test_diagonals(k):
    m, v = R(3, 4), R(3)
    eq(jnp.diagonal(m, k), np.diagonal(m, k))
    eq(jnp.diag(m, k), np.diag(m, k))
    eq(jnp.diag(v, k), np.diag(v, k))
    eq(jnp.diagflat(m[:2, :2], k), np.diagflat(m[:2, :2], k))
    t = R(2, 3, 4)
    eq(jnp.diagonal(t, k, 2, 0), np.diagonal(t, k, 2, 0))
    np.testing.assert_allclose(np.asarray(jnp.trace(m, k)), np.trace(m, k), rtol=1e-6, atol=1e-6)


def test_diag_errors():
    with pytest.raises(ValueError, match="diagonal requires an array of at least two dimensions"):
        jnp.diagonal(jnp.ones(3))
    with pytest.raises(ValueError, match="diag input must be 1d or 2d"):
        jnp.diag(jnp.ones((2, 2, 2)))


def test_resize_and_helpers():
    x = np.arange(3, dtype=np.int32)
    eq(jnp.resize(x, (2, 4)), np.resize(x, (2, 4)))
    eq(jnp.resize(x, 2), np.resize(x, 2))
    assert jnp.shape(R(2, 3)) == (2, 3) and jnp.ndim(R(2, 3)) == 2 and jnp.size(R(2, 3)) == 6


def test_rollaxis_and_apply_functions():
    x = R(2, 3, 4)
    eq(jnp.rollaxis(x, 2), np.rollaxis(x, 2))
    eq(jnp.rollaxis(x, 0, 2), np.rollaxis(x, 0, 2))
    eq(jnp.rollaxis(x, -1, -3), np.rollaxis(x, -1, -3))
    m = np.arange(6, dtype=np.int32).reshape(2, 3)
    eq(jnp.apply_along_axis(jnp.sum, 1, m), np.apply_along_axis(np.sum, 1, m).astype(np.int32))
    eq(jnp.apply_along_axis(lambda v: v[::-1], 0, m), np.apply_along_axis(lambda v: v[::-1], 0, m))
    t = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    eq(jnp.apply_over_axes(jnp.sum, t, [0, 2]), np.apply_over_axes(np.sum, t, [0, 2]).astype(np.int32))


def test_pad_traced_constant_values():
    x = R(2, 3)
    f = jaxweb.jit(lambda x, c: jnp.pad(x, ((1, 0), (0, 2)), constant_values=c))
    eq(f(x, np.float32(4)), np.pad(x, ((1, 0), (0, 2)), constant_values=4))
    cv = np.float32([[1, 2], [3, 4]])
    eq(f(x, cv), np.pad(x, ((1, 0), (0, 2)), constant_values=cv))
    g = jaxweb.grad(lambda c: jnp.pad(x, 1, constant_values=c).sum())
    np.testing.assert_allclose(float(g(np.float32(0))), 4 * 5 - 6)


@pytest.mark.parametrize("mode", ["maximum", "minimum", "mean", "median"])
@pytest.mark.parametrize("stat_length", [None, 2, ((1, 2), (3, 1))])
def test_pad_stat_modes(mode, stat_length):
    x = np.arange(12, dtype=np.int32).reshape(3, 4) * 7 % 11
    eq(jnp.pad(x, ((1, 2), (3, 1)), mode=mode, stat_length=stat_length),
       np.pad(x, ((1, 2), (3, 1)), mode=mode, stat_length=stat_length))
    xf = x.astype(np.float32) / 3
    np.testing.assert_allclose(np.asarray(jnp.pad(xf, 2, mode=mode, stat_length=stat_length)),
                               np.pad(xf, 2, mode=mode, stat_length=stat_length), rtol=1e-6)


def test_pad_linear_ramp():
    x = R(3, 4)
    for ends in (0, 5.0, ((1, 2), (3, -1))):
        np.testing.assert_allclose(np.asarray(jnp.pad(x, ((1, 2), (3, 1)), mode="linear_ramp", end_values=ends)),
                                   np.pad(x, ((1, 2), (3, 1)), mode="linear_ramp", end_values=ends), rtol=1e-5, atol=1e-6)

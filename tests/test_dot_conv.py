"""dot_general, jnp products/einsum, conv_general_dilated and reduce_window against numpy."""
import itertools

import numpy as np
import pytest

import jaxweb
import jaxweb.numpy as jnp
from jaxweb import lax


pytestmark = pytest.mark.on_every_device  # see conftest.py


rng = np.random.RandomState(1)


def randn(*shape, dtype="float32"):
    return rng.standard_normal(shape).astype(dtype)


def close(a, b, tol=1e-4):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol, atol=tol, equal_nan=True)


# ---------------------------------------------------------------- dot_general
@pytest.mark.parametrize("ls,rs,dn,spec", [
    ((3, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik"),
    ((3, 2, 4), (5, 4, 3), (((2, 0), (1, 2)), ((), ())), "cbk,dkc->bd"),
    ((2, 3, 4), (4, 2, 5), (((2,), (0,)), ((0,), (1,))), "bij,jbk->bik"),
    ((3,), (4,), (((), ()), ((), ())), "i,j->ij"),
    ((0, 3), (3, 2), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ((2, 0), (0, 3), (((1,), (0,)), ((), ())), "ij,jk->ik"),
])
def test_dot_general(ls, rs, dn, spec):
    a, b = randn(*ls), randn(*rs)
    close(lax.dot_general(a, b, dn), np.einsum(spec, a, b))


def test_dot_general_dtypes():
    a = np.array([[100, 100]], np.int8)
    b = np.array([[2], [1]], np.int8)
    assert lax.dot(a, b).tolist() == [[44]] and lax.dot(a, b).dtype == jnp.int8
    out = lax.dot(a, b, preferred_element_type=jnp.int32)
    assert out.dtype == jnp.int32 and out.tolist() == [[300]]
    t, f = np.array([[True, False]]), np.array([[False], [True]])
    assert lax.dot(t, f).tolist() == [[False]] and lax.dot(t, np.array([[True], [True]])).tolist() == [[True]]
    h = randn(3, 8).astype(np.float16)
    out = lax.dot(h, h.T)
    assert out.dtype == jnp.float16
    close(out, (h.astype(np.float32) @ h.T.astype(np.float32)).astype(np.float16), 1e-2)
    assert lax.dot_general(randn(2, 3), np.ones((3,), np.int32), (((1,), (0,)), ((), ()))).dtype == jnp.float32
    close(lax.batch_matmul(randn(2, 3, 4), randn(2, 4, 1)).shape, (2, 3, 1))


def test_dot_general_errors():
    with pytest.raises(TypeError, match=r"dot_general requires contracting dimensions to have the same "
                                        r"shape, got \(3,\) and \(4,\)"):
        lax.dot_general(np.ones((2, 3)), np.ones((4, 5)), (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError, match="rhs batch dimensions to be disjoint"):
        lax.dot_general(np.ones((2, 3)), np.ones((3, 3)), (((1,), (0,)), ((0,), (0,))))
    with pytest.raises(TypeError, match="batch dimensions to have the same shape"):
        lax.dot_general(np.ones((2, 3)), np.ones((3, 3)), (((1,), (0,)), ((0,), (1,))))


# ---------------------------------------------------------------- jnp products
@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                   ((5, 2, 3), (3, 4)), ((1, 2, 3), (4, 3, 2)), ((2, 1, 2, 3), (3, 3, 2))])
def test_matmul(sa, sb):
    a, b = randn(*sa), randn(*sb)
    close(jnp.matmul(a, b), np.matmul(a, b))
    close(jnp.asarray(a) @ jnp.asarray(b), a @ b)


def test_matmul_errors_and_promotion():
    with pytest.raises(TypeError, match="contracting dimensions"):
        jnp.matmul(np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))
    with pytest.raises(ValueError):
        jnp.matmul(np.float32(1), np.ones(3, np.float32))
    out = jnp.matmul(np.ones((2, 2), np.int32), np.ones((2, 2), np.float32))
    assert out.dtype == jnp.float32


def test_dot_inner_outer_vdot_tensordot_kron():
    a, b = randn(2, 3, 4), randn(5, 4, 6)
    u, v, w = randn(4), randn(4), randn(3)
    close(jnp.dot(a, b), np.dot(a, b))
    close(jnp.dot(2.0, b), 2 * b)
    close(jnp.dot(u, v), np.dot(u, v))
    m = randn(7, 4)
    close(jnp.inner(a, m), np.inner(a, m))
    close(jnp.vdot(a, a), np.vdot(a, a))
    close(jnp.outer(u, w), np.outer(u, w))
    c, d = randn(4, 3, 2), randn(3, 4, 2)
    close(jnp.tensordot(a, c, axes=([1, 2], [1, 0])), np.tensordot(a, c, axes=([1, 2], [1, 0])))
    close(jnp.tensordot(a, d, axes=2), np.tensordot(a, d, axes=2))
    close(jnp.tensordot(u, v, axes=0), np.tensordot(u, v, axes=0))
    k1, k2 = randn(2, 3), randn(3, 2)
    close(jnp.kron(k1, k2), np.kron(k1, k2))
    p, q = randn(2, 3), randn(3)
    close(jnp.vecdot(p, q), np.sum(p * q, -1))
    mat = randn(2, 3, 4)
    close(jnp.matvec(mat, u), mat @ u)
    close(jnp.vecmat(w, mat), np.einsum("j,bjk->bk", w, mat))


@pytest.mark.parametrize("spec,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("ij,jk", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]), ("ij->ji", [(2, 3)]), ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (3, 4)]), ("i,i->", [(5,), (5,)]), ("i,j->ij", [(2,), (3,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]), ("abc,cd,ba->d", [(2, 3, 4), (4, 5), (3, 2)]),
    ("...i,i", [(2, 3, 4), (4,)]), ("ij,ij->i", [(1, 3), (4, 3)]),
])
def test_einsum(spec, shapes):
    ops = [randn(*s) for s in shapes]
    close(jnp.einsum(spec, *ops), np.einsum(spec, *ops))


def test_einsum_errors():
    with pytest.raises(ValueError, match="Size of label 'j' for operand 1"):
        jnp.einsum("ij,jk", np.ones((2, 3), np.float32), np.ones((4, 5), np.float32))


# ---------------------------------------------------------------- convolution
def ref_conv(lhs, rhs, strides, pads, ld, rd, groups=1, batch_groups=1):
    """Direct loop over (N, C, spatial...) / (O, I, spatial...) operands."""
    n, c = lhs.shape[:2]
    o, i = rhs.shape[:2]
    sp, ks = lhs.shape[2:], rhs.shape[2:]
    dil = [(s - 1) * d + 1 if s else 0 for s, d in zip(sp, ld)]
    xd = np.zeros((n, c) + tuple(dil), np.float64)
    xd[(slice(None), slice(None)) + tuple(slice(None, None, d) for d in ld)] = lhs
    for ax, (lo, hi) in enumerate(pads):
        a = ax + 2
        if lo < 0:
            xd, lo = np.take(xd, range(-lo, xd.shape[a]), axis=a), 0
        if hi < 0:
            xd, hi = np.take(xd, range(0, xd.shape[a] + hi), axis=a), 0
        width = [(0, 0)] * xd.ndim
        width[a] = (lo, hi)
        xd = np.pad(xd, width)
    kd = [(k - 1) * d + 1 for k, d in zip(ks, rd)]
    outs = [max(0, (xd.shape[2 + j] - kd[j]) // strides[j] + 1) for j in range(len(sp))]
    out = np.zeros((n // batch_groups, o) + tuple(outs))
    og, ob, nb = o // groups, o // batch_groups, n // batch_groups
    for b_, oo in itertools.product(range(n // batch_groups), range(o)):
        xs = xd[(oo // ob) * nb + b_, (oo // og) * i:(oo // og + 1) * i]
        for pos in np.ndindex(*outs):
            sl = tuple(slice(p * s, p * s + k, d) for p, s, k, d in zip(pos, strides, kd, rd))
            out[(b_, oo) + pos] = np.sum(xs[(slice(None),) + sl] * rhs[oo])
    return out


CONV_CONFIGS = [  # lhs, rhs, strides, padding, lhs_dil, rhs_dil, groups, batch_groups
    ((2, 4, 7, 6), (6, 2, 3, 2), (2, 1), ((1, 2), (0, 1)), (1, 2), (2, 1), 2, 1),
    ((4, 3, 5), (6, 3, 2), (1,), ((0, 0),), (1,), (1,), 1, 2),
    ((1, 2, 5), (3, 2, 3), (2,), ((2, -1),), (3,), (1,), 1, 1),
    ((2, 1, 4, 4), (1, 1, 2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), 1, 1),
    ((1, 2, 3, 3, 3), (2, 2, 2, 1, 2), (1, 2, 1), ((1, 0), (0, 0), (1, 1)), (1, 1, 2), (1, 1, 1), 1, 1),
    ((2, 3, 2), (4, 3, 3), (1,), ((0, 0),), (1,), (1,), 1, 1),  # window larger than input: empty
]


@pytest.mark.parametrize("cfg", CONV_CONFIGS)
def test_conv_general_dilated(cfg):
    ls, rs, st, pad, ld, rd, g, b = cfg
    a, w = randn(*ls), randn(*rs)
    got = lax.conv_general_dilated(a, w, st, pad, ld, rd, feature_group_count=g, batch_group_count=b)
    close(got, ref_conv(a, w, st, pad, ld, rd, g, b))


def test_conv_layouts_and_padding_strings():
    a, w = randn(2, 5, 6, 4), randn(3, 2, 4, 5)
    got = lax.conv_general_dilated(a, w, (1, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    expect = ref_conv(a.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (1, 2), ((1, 1), (0, 1)), (1, 1), (1, 1))
    close(got, expect.transpose(0, 2, 3, 1))
    got = lax.conv_general_dilated(a.transpose(0, 3, 1, 2), w, (2, 1), "SAME_LOWER",
                                   dimension_numbers=("NCHW", "HWIO", "NHWC"))
    expect = ref_conv(a.transpose(0, 3, 1, 2), w.transpose(3, 2, 0, 1), (2, 1), ((1, 1), (1, 0)), (1, 1), (1, 1))
    close(got, expect.transpose(0, 2, 3, 1))
    x, k = randn(1, 2, 6), randn(3, 2, 3)
    close(lax.conv(x, k, (2,), "VALID"), ref_conv(x, k, (2,), ((0, 0),), (1,), (1,)))
    close(lax.conv_with_general_padding(x, k, (1,), ((1, 2),), (2,), (2,)),
          ref_conv(x, k, (1,), ((1, 2),), (2,), (2,)))
    xi, ki = np.arange(12, dtype=np.int32).reshape(1, 2, 6), np.ones((1, 2, 2), np.int32)
    assert lax.conv(xi, ki, (1,), "VALID").tolist() == [[[14, 18, 22, 26, 30]]]


def test_conv_transpose_matches_jax():
    # values from jax.lax.conv_transpose on the same inputs
    x = np.arange(6, dtype=np.float32).reshape(1, 3, 2)  # NHC
    k = np.array([1, 2, 3, 4, 5, 6], np.float32).reshape(3, 2, 1)  # HIO
    same = lax.conv_transpose(x, k, (2,), "SAME")
    valid = lax.conv_transpose(x, k, (2,), "VALID")
    assert same.shape == (1, 6, 1) and valid.shape == (1, 7, 1)
    close(same[0, :, 0], [6., 4., 30., 18., 58., 32.])
    close(valid[0, :, 0], [6., 4., 30., 18., 58., 32., 14.])


def test_conv_transpose_kernel_and_dilation_match_jax():
    x = np.arange(10, dtype=np.float32).reshape(1, 5, 2) / 4
    k = np.arange(24, dtype=np.float32).reshape(4, 3, 2) / 8 - 1
    got = np.asarray(lax.conv_transpose(x, k, (3,), "SAME", transpose_kernel=True)).ravel()
    assert got.shape == (45,)
    close(got[:12], [-0.21875, -0.15625, -0.09375, -0.03125, 0.03125, 0.09375, 0.15625, 0.21875, 0.28125,
                     -0.8125, -0.4375, -0.0625])
    close(got[-3:], [2.40625, 3.46875, 4.53125])
    got = np.asarray(lax.conv_transpose(x, k[:, :2, :].transpose(0, 2, 1), (2,), "VALID", rhs_dilation=(2,)))
    close(got.ravel()[:10], [0.34375, 0.40625, 0.0, 0.0, 1.8125, 2.1875, 0.0, 0.0, 3.65625, 4.59375])
    close(got.ravel()[-4:], [0.0, 0.0, -3.96875, -2.90625])


def test_conv_errors():
    with pytest.raises(ValueError, match="String padding is not implemented for transposed convolution"):
        lax.conv_general_dilated(np.ones((1, 2, 5)), np.ones((1, 2, 2)), (1,), "SAME", lhs_dilation=(2,))
    with pytest.raises(ValueError, match="feature_group_count"):
        lax.conv_general_dilated(np.ones((1, 4, 5)), np.ones((3, 2, 2)), (1,), "VALID", feature_group_count=2)
    with pytest.raises(TypeError, match="same dtypes"):
        lax.conv(np.ones((1, 2, 5), np.float32), np.ones((1, 2, 2), np.int32), (1,), "VALID")


# ---------------------------------------------------------------- reduce_window
def ref_reduce_window(x, op, init, wdims, strides, pads, bdil, wdil):
    dil = [(n - 1) * d + 1 if n else 0 for n, d in zip(x.shape, bdil)]
    xd = np.full(dil, init, np.float64)
    xd[tuple(slice(None, None, d) for d in bdil)] = x
    xd = np.pad(xd, pads, constant_values=init)
    kd = [(k - 1) * d + 1 for k, d in zip(wdims, wdil)]
    outs = [max(0, (xd.shape[j] - kd[j]) // strides[j] + 1) for j in range(x.ndim)]
    out = np.zeros(outs)
    for pos in np.ndindex(*outs):
        sl = tuple(slice(p * s, p * s + k, d) for p, s, k, d in zip(pos, strides, kd, wdil))
        out[pos] = op(xd[sl]) if xd[sl].size else init
    return out


@pytest.mark.parametrize("comp,op,init", [(lax.add, np.sum, 0.0), (lax.max, np.max, -np.inf),
                                          (lax.min, np.min, np.inf)])
@pytest.mark.parametrize("cfg", [((2, 3), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)),
                                 ((2, 3), (2, 1), ((1, 0), (1, 2)), (1, 2), (2, 1)),
                                 ((3, 1), (2, 3), ((2, 2), (0, 0)), (2, 1), (1, 1))])
def test_reduce_window(comp, op, init, cfg):
    x = randn(5, 4)
    wd, st, pads, bd, wdl = cfg
    got = lax.reduce_window(x, init, comp, wd, st, pads, bd, wdl)
    close(got, ref_reduce_window(x, op, init, wd, st, pads, bd, wdl))


def test_reduce_window_padding_strings_and_init():
    x = randn(6, 5)
    got = lax.reduce_window(x, -np.inf, lax.max, (3, 2), (2, 2), "SAME")
    close(got, ref_reduce_window(x, np.max, -np.inf, (3, 2), (2, 2), ((0, 1), (0, 1)), (1, 1), (1, 1)))
    close(lax.reduce_window(x, 1.0, lax.add, (2, 2), (1, 1), "VALID"),
          ref_reduce_window(x, np.sum, 0.0, (2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1)) + 1)
    xi = np.arange(5, dtype=np.int32)
    assert lax.reduce_window(xi, 0, lax.add, (2,), (1,), "VALID").tolist() == [1, 3, 5, 7]
    # from JAX: base dilation holes hold the init value
    close(lax.reduce_window(np.arange(1., 6., dtype=np.float32), -np.inf, lax.max, (2,), (1,), ((0, 0),),
                            base_dilation=(2,)), [1, 2, 2, 3, 3, 4, 4, 5])
    with pytest.raises(NotImplementedError):
        lax.reduce_window(x, 0.0, lambda a, b: a - b, (2, 2), (1, 1), "VALID")


@pytest.mark.parametrize("n,m", [(5, 3), (3, 5), (4, 4), (6, 1), (2, 5)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(n, m, mode):
    a, v = randn(n), randn(m)
    close(jnp.convolve(a, v, mode), np.convolve(a, v, mode))
    close(jnp.correlate(a, v, mode), np.correlate(a, v, mode))


def test_convolve_dtypes_and_errors():
    assert jnp.convolve(np.array([1, 2, 3]), np.array([0, 1])).dtype == jnp.float32
    with pytest.raises(ValueError, match="1-dimensional"):
        jnp.convolve(np.ones((2, 2)), np.ones(2))

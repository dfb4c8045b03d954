"""Control flow in jaxprs (printed as JAX prints them) and its errors (JAX's types and
wording). The expected texts are JAX 0.10.2's `make_jaxpr` output for the same
functions, with one addition: jaxweb's scan keeps JAX's older `linear` parameter."""
import re

import numpy as np
import pytest

import jaxweb as jax
import jaxweb.numpy as jnp
from jaxweb import lax
from jaxweb._src.lax.control_flow import cond_p, scan_p, while_p


def text(f, *args):
    return str(jax.make_jaxpr(f)(*args))


# ---------------------------------------------------------------- printing
def test_cond_jaxpr():
    assert text(lambda x: lax.cond(x > 0, lambda x: x + 1, lambda x: x - 1, x), 1.0) == """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] = cond[
      branches=(
        { lambda ; e:f32[]. let f:f32[] = sub e 1.0:f32[] in (f,) }
        { lambda ; g:f32[]. let h:f32[] = add g 1.0:f32[] in (h,) }
      )
    ] c a
  in (d,) }"""


def test_switch_jaxpr():
    assert text(lambda x: lax.switch(2, [lambda x: x + 1, lambda x: x - 1, jnp.sin], x), 1.0) == """\
{ lambda ; a:f32[]. let
    b:i32[] = clamp 0:i32[] 2:i32[] 2:i32[]
    c:f32[] = cond[
      branches=(
        { lambda ; d:f32[]. let e:f32[] = add d 1.0:f32[] in (e,) }
        { lambda ; f:f32[]. let g:f32[] = sub f 1.0:f32[] in (g,) }
        { lambda ; h:f32[]. let i:f32[] = sin h in (i,) }
      )
    ] b a
  in (c,) }"""


def test_while_jaxpr():
    assert text(lambda x: lax.while_loop(lambda c: c < 10, lambda c: c + 1, x), 1.0) == """\
{ lambda ; a:f32[]. let
    b:f32[] = while[
      body_jaxpr={ lambda ; c:f32[]. let d:f32[] = add c 1.0:f32[] in (d,) }
      body_nconsts=0
      cond_jaxpr={ lambda ; e:f32[]. let f:bool[] = lt e 10.0:f32[] in (f,) }
      cond_nconsts=0
    ] a
  in (b,) }"""


def test_fori_loop_jaxprs_static_is_scan_traced_is_while():
    assert text(lambda x: lax.fori_loop(0, 3, lambda i, c: c + i, x), 1.0) == """\
{ lambda ; a:f32[]. let
    _:i32[] b:f32[] = scan[
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1:i32[]
          f:f32[] = convert_element_type[new_dtype=float32 weak_type=True] c
          g:f32[] = add d f
        in (e, g) }
      length=3
      linear=(False, False)
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
  in (b,) }"""
    assert text(lambda x, n: lax.fori_loop(0, n, lambda i, c: c + i, x), 1.0, 3) == """\
{ lambda ; a:f32[] b:i32[]. let
    _:i32[] _:i32[] c:f32[] = while[
      body_jaxpr={ lambda ; d:i32[] e:i32[] f:f32[]. let
          g:i32[] = add d 1:i32[]
          h:f32[] = convert_element_type[new_dtype=float32 weak_type=True] d
          i:f32[] = add f h
        in (g, e, i) }
      body_nconsts=0
      cond_jaxpr={ lambda ; j:i32[] k:i32[] l:f32[]. let
          m:bool[] = lt j k
        in (m,) }
      cond_nconsts=0
    ] 0:i32[] b a
  in (c,) }"""


def test_scan_jaxpr_reverse_unroll():
    got = text(lambda x, xs: lax.scan(lambda c, a: (c + a, c * a), x, xs, reverse=True, unroll=2),
               np.float32(1.0), np.ones(3, np.float32))
    assert got == """\
{ lambda ; a:f32[] b:f32[3]. let
    c:f32[] d:f32[3] = scan[
      jaxpr={ lambda ; e:f32[] f:f32[]. let
          g:f32[] = add e f
          h:f32[] = mul e f
        in (g, h) }
      length=3
      linear=(False, False)
      num_carry=1
      num_consts=0
      reverse=True
      unroll=2
    ] a b
  in (c, d) }"""


def test_grad_of_fori_loop_jaxpr_is_forward_scan_then_reverse_scan():
    got = text(lambda x: jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.sin(c), x))(x), 1.0)
    assert got == """\
{ lambda ; a:f32[]. let
    _:i32[] _:f32[] b:f32[3] = scan[
      jaxpr={ lambda ; c:i32[] d:f32[]. let
          e:i32[] = add c 1:i32[]
          f:f32[] = sin d
          g:f32[] = cos d
        in (e, f, g) }
      length=3
      linear=(False, False)
      num_carry=2
      num_consts=0
      reverse=False
      unroll=1
    ] 0:i32[] a
    h:f32[] = scan[
      jaxpr={ lambda ; i:f32[] j:f32[]. let k:f32[] = mul i j in (k,) }
      length=3
      linear=(True, False)
      num_carry=1
      num_consts=0
      reverse=True
      unroll=1
    ] 1.0:f32[] b
  in (h,) }"""


def test_jvp_of_cond_jaxpr():
    got = text(lambda x: jax.jvp(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x), (x,), (x,)), 1.0)
    assert got == """\
{ lambda ; a:f32[]. let
    b:bool[] = gt a 0.0:f32[]
    c:i32[] = convert_element_type[new_dtype=int32 weak_type=False] b
    d:f32[] e:f32[] = cond[
      branches=(
        { lambda ; f:f32[] g:f32[]. let
            h:f32[] = cos f
            i:f32[] = sin f
            j:f32[] = mul g i
            k:f32[] = neg j
          in (h, k) }
        { lambda ; l:f32[] m:f32[]. let
            n:f32[] = sin l
            o:f32[] = cos l
            p:f32[] = mul m o
          in (n, p) }
      )
    ] c a a
  in (d, e) }"""


def _prims(closed):
    return [e.primitive for e in closed.eqns]


def test_vmap_of_cond_batched_predicate_has_no_cond():
    closed = jax.make_jaxpr(jax.vmap(lambda x: lax.cond(x > 0, lambda v: v + 1, lambda v: v - 1, x)))(jnp.ones(3))
    names = [p.name for p in _prims(closed)]
    assert cond_p not in _prims(closed) and names[-1] == "select_n" and names.count("stop_gradient") == 2
    closed = jax.make_jaxpr(jax.vmap(lambda x: lax.cond(True, lambda v: v + 1, lambda v: v - 1, x)))(jnp.ones(3))
    assert cond_p in _prims(closed)


def test_vmap_of_while_batched_predicate_jaxpr():
    f = jax.vmap(lambda n: lax.while_loop(lambda c: c < n, lambda c: c + 1, 0))
    closed = jax.make_jaxpr(f)(jnp.arange(3))
    (eqn,) = [e for e in closed.eqns if e.primitive is while_p]
    assert eqn.params["cond_jaxpr"].out_avals[0].shape == (3,)  # the predicate stays batched
    assert "while[" in str(closed)


def test_jit_keeps_loops_in_its_jaxpr():
    f = jax.jit(lambda xs: lax.scan(lambda c, x: (c + x, c), 0.0, xs))
    closed = f.trace(np.ones(4, np.float32))
    assert scan_p in _prims(closed)
    assert "length=4" in str(closed)


# ---------------------------------------------------------------- errors
def test_branch_output_type_mismatch_names_both_types():
    with pytest.raises(TypeError, match=re.escape(
            "cond branches must have equal output types but they differ.")) as e:
        lax.cond(True, lambda x: x, lambda x: x.astype(jnp.int32), 1.0)
    assert ("The output of true_fun has type float32[] but the corresponding output of false_fun has "
            "type int32[], so the dtypes do not match.") in str(e.value)
    assert "true_fun is <lambda> at " in str(e.value)
    with pytest.raises(TypeError, match="so the shapes do not match"):
        lax.cond(True, lambda x: jnp.zeros(3), lambda x: jnp.zeros(2), 1.0)
    with pytest.raises(TypeError, match=re.escape("The output of branch 0 has type float32[] but the "
                                                  "corresponding output of branch2 has type int32[]")):
        lax.switch(1, [lambda: 1.0, lambda: 2.0, lambda: jnp.int32(3)])


def test_branch_output_structure_mismatch():
    with pytest.raises(TypeError, match="cond branch outputs must have the same pytree structure") as e:
        lax.cond(True, lambda x: (x, x), lambda x: x, 1.0)
    assert "true_fun output is a <class 'tuple'> but false_fun output is a pytree leaf, so their Python " \
           "types differ." in str(e.value)


def test_predicate_and_index_errors():
    with pytest.raises(TypeError, match=re.escape("Pred must be a scalar, got [ True  True] of shape (2,).")):
        lax.cond(np.array([True, True]), lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="Pred must be a scalar, got a of type <class 'str'>"):
        lax.cond("a", lambda: 1.0, lambda: 2.0)
    with pytest.raises(TypeError, match="Index type must be an integer, got 1.5 as float32"):
        lax.switch(1.5, [lambda: 1.0, lambda: 2.0])
    with pytest.raises(TypeError, match=re.escape("Branch index must be scalar, got [1 1] of shape (2,).")):
        lax.switch(np.ones(2, np.int32), [lambda: 1.0, lambda: 2.0])
    with pytest.raises(ValueError, match="Empty branch sequence"):
        lax.switch(0, [])


def test_non_callable_arguments():
    cases = [(lambda: lax.cond(True, 1, lambda x: x, 1.0), "lax.cond: true_fun and false_fun arguments should be callable."),
             (lambda: lax.switch(1, [lambda x: x, 3], 1.0), "lax.switch: branches argument should be a sequence of callables."),
             (lambda: lax.while_loop(lambda c: c < 3, 1, 1.0), "lax.while_loop: body_fun and cond_fun arguments should be callable."),
             (lambda: lax.fori_loop(0, 3, 1, 1.0), "lax.fori_loop: body_fun argument should be callable."),
             (lambda: lax.scan(3, 1.0, jnp.ones(3)), "lax.scan: f argument should be a callable."),
             (lambda: lax.associative_scan(3, jnp.ones(3)), "lax.associative_scan: fn argument should be callable.")]
    for call, msg in cases:
        with pytest.raises(TypeError, match=re.escape(msg)):
            call()


def test_carry_type_mismatch_names_both_types():
    with pytest.raises(TypeError, match=re.escape(
            "scan body function carry input and carry output must have equal types")) as e:
        lax.scan(lambda c, x: (c.astype(jnp.int32), x), 1.0, jnp.ones(3))
    assert ("The input carry c has type float32[] but the corresponding output carry component has "
            "type int32[], so the dtypes do not match.") in str(e.value)
    with pytest.raises(TypeError, match=re.escape("The input carry component carry['b'] has type float32[]")):
        lax.scan(lambda carry, x: ({"a": carry["a"], "b": carry["b"].astype(jnp.int32)}, x),
                 {"a": 1.0, "b": 2.0}, jnp.ones(3))
    with pytest.raises(TypeError, match="while_loop body function carry input and carry output must have "
                                        "equal types") as e:
        lax.while_loop(lambda c: c < 3, lambda c: (c + 1).astype(jnp.int32), 1.0)
    assert "type float32[] but the corresponding output carry component has type int32[]" in str(e.value)
    with pytest.raises(TypeError, match=re.escape("The input carry component loop_carry[1] has type float32[]")):
        lax.fori_loop(0, 3, lambda i, c: c.astype(jnp.int32), 1.0)
    with pytest.raises(TypeError, match="carry input and carry output must have the same pytree structure"):
        lax.scan(lambda c, x: ((c, c), x), 1.0, jnp.ones(3))


def test_scan_length_errors():
    with pytest.raises(ValueError, match="scan got values with different leading axis sizes: 3, 4."):
        lax.scan(lambda c, x: (c, x), 1.0, (jnp.ones(3), jnp.ones(4)))
    with pytest.raises(ValueError, match=re.escape("scan got `length` argument of 4 which disagrees with "
                                                   "leading axis sizes [3].")):
        lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), length=4)
    with pytest.raises(ValueError, match="scan got no values to scan over and `length` not provided."):
        lax.scan(lambda c, x: (c, x), 1.0, None)
    with pytest.raises(ValueError, match="scan got value with no leading axis to scan over: 3.0."):
        lax.scan(lambda c, x: (c, x), 1.0, 3.0)
    with pytest.raises(TypeError, match="scan body output must be a pair"):
        lax.scan(lambda c, x: c, 1.0, jnp.ones(3))
    with pytest.raises(ValueError, match="`unroll` must be a `bool` or a non-negative `int`."):
        lax.scan(lambda c, x: (c, x), 1.0, jnp.ones(3), unroll=-1)
    with pytest.raises(jax.errors.ConcretizationTypeError, match="The `length` argument to `scan` expects a "
                                                                  "concrete `int` value"):
        jax.jit(lambda n: lax.scan(lambda c, x: (c, x), 0.0, None, length=n))(3)


def test_while_and_fori_errors():
    with pytest.raises(TypeError, match=re.escape("cond_fun must return a boolean scalar, but got output "
                                                  "type(s) [ShapedArray(float32[], weak_type=True)].")):
        lax.while_loop(lambda c: c, lambda c: c + 1, 1.0)
    with pytest.raises(TypeError, match="cond_fun must return a boolean scalar, but got pytree"):
        lax.while_loop(lambda c: (c < 1, c < 2), lambda c: c + 1, 1.0)
    with pytest.raises(TypeError, match="lower and upper arguments to fori_loop must have equal types, got "
                                        "int32 and int16"):
        lax.fori_loop(jnp.int32(0), jnp.int16(3), lambda i, c: c, 1.0)
    with pytest.raises(ValueError, match="Can only use `unroll` in `fori_loop` if the loop bounds are "
                                         "statically known."):
        jax.jit(lambda n: lax.fori_loop(0, n, lambda i, c: c, 1.0, unroll=2))(3)
    with pytest.raises(ValueError, match="Array inputs to associative_scan must have the same first dimension"):
        lax.associative_scan(jnp.add, (jnp.ones(3), jnp.ones(4)))


def test_traced_predicate_in_python_if_still_raises():
    with pytest.raises(jax.errors.TracerBoolConversionError, match="test_control_flow_jaxpr.py"):
        jax.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2, x) if x > 0 else x)(1.0)
    with pytest.raises(jax.errors.ConcretizationTypeError):
        lax.scan(lambda c, x: (c + 1 if x > 0 else c, x), 0.0, jnp.ones(3))
    with pytest.raises(jax.errors.ConcretizationTypeError):
        lax.cond(True, lambda x: x if x > 0 else -x, lambda x: x, 1.0)


def test_disable_jit_runs_python_control_flow():
    seen = []

    def body(c, x):
        seen.append(type(x).__name__)
        return c + x, c * x

    with jax.disable_jit():
        c, ys = lax.scan(body, 1.0, jnp.arange(3.0), reverse=True)
        assert float(c) == 4.0 and np.asarray(ys).tolist() == [0.0, 3.0, 2.0]
        assert seen == ["Array"] * 3  # concrete values, not tracers
        assert float(lax.cond(True, lambda x: x + 1, lambda x: x - 1, 1.0)) == 2.0
        assert int(lax.while_loop(lambda c: c < 5, lambda c: c + 2, 0)) == 6
        assert float(lax.fori_loop(3, 3, lambda i, c: c + 1.0, 7.0)) == 7.0
        with pytest.raises(ValueError, match="zero-length scan is not supported in disable_jit"):
            lax.scan(body, 1.0, jnp.zeros(0))


def test_pass_through_values_are_forwarded_not_looped():
    # as JAX does: an unchanged scan carry becomes a const, a y equal to an x is that x,
    # an output every branch passes through is the operand, and an unchanged while carry
    # that cond_fun ignores is a body const
    xs = np.ones(3, np.float32)
    closed = jax.make_jaxpr(lambda c, xs: lax.scan(lambda c, x: ((c[0] + x, c[1]), x), c, xs))(
        (np.float32(1.0), np.float32(2.0)), xs)
    assert str(closed).endswith("] b a c\n  in (d, b, c) }")
    (eqn,) = closed.eqns
    assert (eqn.params["num_consts"], eqn.params["num_carry"], len(eqn.outvars)) == (1, 1, 1)
    closed = jax.make_jaxpr(lambda x, y: lax.cond(x > 0, lambda a, b: (a, b + 1), lambda a, b: (a, b * 2), x, y))(1.0, 2.0)
    assert str(closed).endswith("] d a b\n  in (a, e) }")
    closed = jax.make_jaxpr(lambda x, y: lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + c[1], c[1]), (x, y)))(1.0, 2.0)
    assert "body_nconsts=1" in str(closed) and str(closed).endswith("] b a\n  in (c, b) }")
    # and the values are unchanged
    (c0, c1), ys = lax.scan(lambda c, x: ((c[0] + x, c[1]), x), (1.0, 2.0), xs)
    assert (float(c0), float(c1), np.asarray(ys).tolist()) == (4.0, 2.0, [1.0, 1.0, 1.0])
    a, b = lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + c[1], c[1]), (1.0, 2.0))
    assert (float(a), float(b)) == (3.0, 2.0)
    ns = np.array([1, 4], np.int32)
    a, b = jax.vmap(lambda n: lax.while_loop(lambda c: c[0] < n, lambda c: (c[0] + c[1], c[1]), (0, 2)))(ns)
    assert np.asarray(a).tolist() == [2, 4] and np.asarray(b).tolist() == [2, 2]

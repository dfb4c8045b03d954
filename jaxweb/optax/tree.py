"""`optax.tree` on jaxweb: the `tree_utils` functions under short names (`optax.tree.add`)."""
from jaxweb._src.optax import tree_utils as _tu

add, add_scale, allclose, batch_shape = _tu.tree_add, _tu.tree_add_scale, _tu.tree_allclose, _tu.tree_batch_shape
bias_correction, cast, cast_like, clip = (_tu.tree_bias_correction, _tu.tree_cast, _tu.tree_cast_like,
                                          _tu.tree_clip)
conj, div, dtype, full_like = _tu.tree_conj, _tu.tree_div, _tu.tree_dtype, _tu.tree_full_like
get, get_all_with_path = _tu.tree_get, _tu.tree_get_all_with_path
max, min, mul, norm = _tu.tree_max, _tu.tree_min, _tu.tree_mul, _tu.tree_norm  # noqa: A001
ones_like, real, scale, size, sub = _tu.tree_ones_like, _tu.tree_real, _tu.tree_scale, _tu.tree_size, _tu.tree_sub
sum, vdot, where, zeros_like = _tu.tree_sum, _tu.tree_vdot, _tu.tree_where, _tu.tree_zeros_like  # noqa: A001
update_moment, update_infinity_moment = _tu.tree_update_moment, _tu.tree_update_infinity_moment
update_moment_per_elem_norm = _tu.tree_update_moment_per_elem_norm

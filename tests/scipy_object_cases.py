"""Programs over jax.scipy's classes and solvers (Rotation, Slerp, RegularGridInterpolator,
minimize, the sparse solvers, vq), written against a namespace so that the same code runs
in JAX (tests/data/record_jax_scipy_objects.py records their outputs into
tests/data/jax_scipy_objects_reference.json) and in jaxweb (tests/test_scipy_objects.py)."""
import math

ANG = [[0.3, -0.7, 1.2], [2.5, 0.4, -2.9], [0.1, math.pi / 2, 0.2], [0.5, 0.0, 0.3]]


def outputs(jax, jnp, scipy):
    """name -> array: every result these programs print."""
    R, Slerp = scipy.spatial.transform.Rotation, scipy.spatial.transform.Slerp
    ang = jnp.array(ANG, jnp.float32)
    out = {}
    for seq in ["xyz", "zyx", "xzy", "XYZ", "ZXZ", "zxz", "YXY", "xyx"]:
        r = R.from_euler(seq, ang)
        out[f"rot.quat.{seq}"], out[f"rot.euler.{seq}"] = r.as_quat(), r.as_euler(seq)
        out[f"rot.matrix.{seq}"] = r.as_matrix()
    r = R.from_euler("xyz", ang[:2])
    out.update({
        "rot.rotvec": r.as_rotvec(), "rot.mrp": r.as_mrp(), "rot.from_matrix": R.from_matrix(r.as_matrix()).as_quat(),
        "rot.from_rotvec": R.from_rotvec(r.as_rotvec()).as_quat(), "rot.magnitude": r.magnitude(),
        "rot.inv": r.inv().as_quat(), "rot.mul": (r[0] * r[1]).as_quat(),
        "rot.apply": r.apply(jnp.array([1.0, 2.0, 3.0])),
        "rot.apply_inv": r.apply(jnp.array([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]]), inverse=True),
        "rot.mean": R.from_euler("xyz", ang).mean().as_quat(canonical=True),
        "rot.canonical": R.from_quat(jnp.array([[0.0, 0.0, 0.0, -1.0], [-1.0, 0.0, 0.0, 0.0]])).as_quat(canonical=True),
        "rot.scalar_first": r.as_quat(scalar_first=True),
        "rot.from_mrp": R.from_mrp(jnp.array([0.1, 0.2, -0.3])).as_quat(),
        "rot.degrees": R.from_euler("xyz", ang[0] * 50, degrees=True).as_euler("xyz", degrees=True),
        "rot.concatenate": R.concatenate([r, r]).as_quat(), "rot.identity": R.identity().as_quat(),
        "rot.small_rotvec": R.from_rotvec(jnp.array([1e-4, -2e-4, 5e-5])).as_rotvec(),
        "slerp": Slerp.init(jnp.array([0.0, 1.0, 3.0]), R.from_euler("xyz", ang[:3]))(
            jnp.array([0.0, 0.5, 1.0, 2.2, 3.0])).as_quat(),
        "rot.grad": jax.grad(lambda a: R.from_euler("xyz", a).apply(jnp.array([1.0, 0.0, 0.0]))[1])(ang[0]),
    })
    # interpolate
    gx, gy = jnp.array([0.0, 1.0, 2.5, 4.0]), jnp.array([-1.0, 0.0, 2.0])
    vals = jnp.sin(gx[:, None]) * jnp.cos(gy[None, :])
    pts = jnp.array([[0.5, -0.5], [2.5, 1.0], [3.9, 1.9], [4.5, 0.0], [0.0, -1.0], [1.2, 0.3]])
    interp = scipy.interpolate.RegularGridInterpolator((gx, gy), vals)
    out["interp.linear"] = interp(pts)
    out["interp.nearest"] = interp(pts, method="nearest")
    out["interp.fill_none"] = scipy.interpolate.RegularGridInterpolator((gx, gy), vals, fill_value=None)(pts)
    out["interp.fill"] = scipy.interpolate.RegularGridInterpolator((gx, gy), vals, fill_value=-2.0)(pts)
    out["interp.trailing"] = scipy.interpolate.RegularGridInterpolator((gx,), jnp.stack([gx, gx * 2], 1))(
        jnp.array([[0.5], [3.0]]))
    # optimize
    quad = lambda x, a: jnp.sum((x - a) ** 2) + 0.5 * jnp.sum(x) ** 2  # noqa: E731
    res = scipy.optimize.minimize(quad, jnp.zeros(4), args=(jnp.array([1.0, -2.0, 3.0, 0.5]),), method="BFGS")
    out["min.quad.x"], out["min.quad.status"], out["min.quad.jac"] = res.x, res.status, res.jac
    out["min.jit"] = jax.jit(lambda a: scipy.optimize.minimize(quad, jnp.zeros(4), args=(a,), method="bfgs").x)(
        jnp.array([0.5, 0.5, -1.0, 2.0]))
    # sparse.linalg
    n = 6
    spd = jnp.array([[4.0 if i == j else (1.0 / (1 + abs(i - j)) if abs(i - j) < 3 else 0.0) for j in range(n)]
                     for i in range(n)])
    nonsym = spd + jnp.triu(jnp.ones((n, n)), 1) * 0.3
    rhs = jnp.arange(1.0, n + 1)
    sl = scipy.sparse.linalg
    out["cg"] = sl.cg(spd, rhs)[0]
    out["cg.fn"] = sl.cg(lambda v: spd @ v, rhs, tol=1e-6)[0]
    out["cg.pytree"] = sl.cg(lambda t: {"a": spd[:3, :3] @ t["a"], "b": 2 * t["b"]},
                             {"a": rhs[:3], "b": rhs[3:]})[0]["b"]
    out["cg.precond"] = sl.cg(spd, rhs, M=jnp.diag(1 / jnp.diag(spd)))[0]
    out["bicgstab"] = sl.bicgstab(nonsym, rhs)[0]
    out["gmres"] = sl.gmres(nonsym, rhs)[0]
    out["gmres.restart"] = sl.gmres(nonsym, rhs, restart=2, solve_method="incremental")[0]
    out["gmres.x0"] = sl.gmres(nonsym, rhs, x0=jnp.ones(n), tol=1e-6)[0]
    # cluster
    obs = jnp.array([[1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [2.9, 3.1]])
    code, dist = scipy.cluster.vq.vq(obs, jnp.array([[1.0, 1.0], [3.0, 3.0]]))
    out["vq.code"], out["vq.dist"] = code, dist
    out["vq.int"] = scipy.cluster.vq.vq(jnp.array([[1, 2], [3, 4]]), jnp.array([[1, 1], [3, 3]]))[1]
    return out

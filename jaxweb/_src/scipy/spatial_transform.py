"""`jax.scipy.spatial.transform`: Rotation (unit quaternions, scalar last, one or a batch)
and Slerp, with scipy's conventions: lowercase Euler sequences are extrinsic, uppercase
intrinsic; `r * s` applies s first; as_quat is not canonicalized unless asked.

Rotation and Slerp are NamedTuples (so pytrees, as in JAX); every method is written with
jnp operations, hence differentiable, batched by the leading axes, and jittable."""
from __future__ import annotations

__all__ = ["Rotation", "Slerp"]

import math
import re
from typing import Any, NamedTuple, Sequence

from ... import numpy as jnp
from ..random.floats import normal as _normal

Array = Any
_AXES = {"x": 0, "y": 1, "z": 2}


def _qmul(p: Array, q: Array) -> Array:
    """Hamilton product of (x, y, z, w) quaternions (p after q as rotations)."""
    pv, pw, qv, qw = p[..., :3], p[..., 3:], q[..., :3], q[..., 3:]
    v = pw * qv + qw * pv + jnp.cross(pv, qv)
    w = pw * qw - jnp.sum(pv * qv, -1, keepdims=True)
    return jnp.concatenate([v, w], -1)


def _elementary(axis: int, angle: Array) -> Array:
    half = angle / 2
    parts = [jnp.zeros_like(half)] * 3
    parts[axis] = jnp.sin(half)
    return jnp.stack(parts + [jnp.cos(half)], -1)


def _check_seq(seq: str) -> tuple[bool, list[int]]:
    if len(seq) != 3 or not (re.fullmatch("[xyz]{3}", seq) or re.fullmatch("[XYZ]{3}", seq)):
        raise ValueError(f"Expected axes from `seq` to be from ['x', 'y', 'z'] or ['X', 'Y', 'Z'], "
                         f"and all extrinsic or all intrinsic; got {seq}")
    if seq[0] == seq[1] or seq[1] == seq[2]:
        raise ValueError(f"Expected consecutive axes to be different, got {seq}")
    return seq.isupper(), [_AXES[c] for c in seq.lower()]


def _from_matrix(m: Array) -> Array:
    """Shepperd's method: the quaternion from the largest of w², x², y², z²."""
    d = jnp.stack([m[..., 0, 0], m[..., 1, 1], m[..., 2, 2]], -1)
    tr = jnp.sum(d, -1)
    choice = jnp.argmax(jnp.concatenate([d, tr[..., None]], -1), -1)
    cands = []
    for i in range(3):
        j, k = (i + 1) % 3, (i + 2) % 3
        q = [None] * 4
        q[i] = 1 - tr + 2 * m[..., i, i]
        q[j] = m[..., j, i] + m[..., i, j]
        q[k] = m[..., k, i] + m[..., i, k]
        q[3] = m[..., k, j] - m[..., j, k]
        cands.append(jnp.stack(q, -1))
    cands.append(jnp.stack([m[..., 2, 1] - m[..., 1, 2], m[..., 0, 2] - m[..., 2, 0],
                            m[..., 1, 0] - m[..., 0, 1], 1 + tr], -1))
    q = jnp.take_along_axis(jnp.stack(cands, -2), choice[..., None, None], -2)[..., 0, :]
    return q / jnp.linalg.norm(q, axis=-1, keepdims=True)


class Rotation(NamedTuple):
    """A rotation (or batch) as unit quaternions `quat` (..., 4), scalar last."""
    quat: Array

    # -------------------------------------------------------------- constructors
    @classmethod
    def from_quat(cls, quat: Array) -> "Rotation":
        q = jnp.asarray(quat)
        return cls(q / jnp.linalg.norm(q, axis=-1, keepdims=True))

    @classmethod
    def from_matrix(cls, matrix: Array) -> "Rotation":
        return cls(_from_matrix(jnp.asarray(matrix)))

    @classmethod
    def from_rotvec(cls, rotvec: Array, degrees: bool = False) -> "Rotation":
        v = jnp.asarray(rotvec)
        v = jnp.deg2rad(v) if degrees else v
        angle = jnp.linalg.norm(v, axis=-1, keepdims=True)
        a2 = angle * angle
        small = angle <= 1e-3  # sin(θ/2)/θ by its series there
        scale = jnp.where(small, 0.5 - a2 / 48 + a2 * a2 / 3840, jnp.sin(angle / 2) / jnp.where(small, 1, angle))
        return cls(jnp.concatenate([scale * v, jnp.cos(angle / 2)], -1))

    @classmethod
    def from_mrp(cls, mrp: Array) -> "Rotation":
        p = jnp.asarray(mrp)
        n2 = jnp.sum(p * p, -1, keepdims=True)
        return cls(jnp.concatenate([2 * p, 1 - n2], -1) / (1 + n2))

    @classmethod
    def from_euler(cls, seq: str, angles: Array, degrees: bool = False) -> "Rotation":
        intrinsic, axes = _check_seq(seq)
        a = jnp.asarray(angles)
        a = jnp.deg2rad(a) if degrees else a
        if a.shape[-1:] != (3,):
            raise ValueError(f"Expected angles of shape (..., 3), got {a.shape}")
        qs = [_elementary(ax, a[..., i]) for i, ax in enumerate(axes)]
        q = qs[0]
        for nxt in qs[1:]:
            q = _qmul(q, nxt) if intrinsic else _qmul(nxt, q)
        return cls(q)

    @classmethod
    def identity(cls, num: int | None = None, dtype: Any = float) -> "Rotation":
        q = jnp.array([0.0, 0.0, 0.0, 1.0], dtype=dtype)
        return cls(q if num is None else jnp.tile(q, (num, 1)))

    @classmethod
    def random(cls, random_key: Array, num: int | None = None) -> "Rotation":
        return cls.from_quat(_normal(random_key, (4,) if num is None else (num, 4)))

    @classmethod
    def concatenate(cls, rotations: Sequence["Rotation"]) -> "Rotation":
        return cls(jnp.concatenate([jnp.atleast_2d(r.quat) for r in rotations]))

    # -------------------------------------------------------------- conversions
    def as_quat(self, canonical: bool = False, scalar_first: bool = False) -> Array:
        q = self.quat
        if canonical:  # w >= 0 (the first nonzero of w, x, y, z positive)
            order = jnp.stack([q[..., 3], q[..., 0], q[..., 1], q[..., 2]], -1)
            lead = jnp.take_along_axis(order, jnp.argmax(order != 0, -1)[..., None], -1)
            q = jnp.where(lead < 0, -q, q)
        return jnp.roll(q, 1, -1) if scalar_first else q

    def as_matrix(self) -> Array:
        x, y, z, w = (self.quat[..., i] for i in range(4))
        rows = [[w * w + x * x - y * y - z * z, 2 * (x * y - z * w), 2 * (x * z + y * w)],
                [2 * (x * y + z * w), w * w - x * x + y * y - z * z, 2 * (y * z - x * w)],
                [2 * (x * z - y * w), 2 * (y * z + x * w), w * w - x * x - y * y + z * z]]
        return jnp.stack([jnp.stack(r, -1) for r in rows], -2)

    def as_rotvec(self, degrees: bool = False) -> Array:
        q = jnp.where(self.quat[..., 3:] < 0, -self.quat, self.quat)
        v, w = q[..., :3], q[..., 3]
        angle = 2 * jnp.arctan2(jnp.linalg.norm(v, axis=-1), w)
        a2 = angle * angle
        small = angle <= 1e-3
        scale = jnp.where(small, 2 + a2 / 12 + 7 * a2 * a2 / 2880, angle / jnp.sin(jnp.where(small, 1, angle) / 2))
        out = scale[..., None] * v
        return jnp.rad2deg(out) if degrees else out

    def as_mrp(self) -> Array:
        q = jnp.where(self.quat[..., 3:] < 0, -self.quat, self.quat)
        return q[..., :3] / (1 + q[..., 3:])

    def as_euler(self, seq: str, degrees: bool = False) -> Array:
        """Bernardes & Viollet's angles from the quaternion (scipy's method); at gimbal
        lock the last angle is set to 0."""
        intrinsic, (i, j, k) = _check_seq(seq)
        if intrinsic:  # an intrinsic sequence is the reversed extrinsic one
            i, k = k, i
        symmetric = i == k
        if symmetric:
            k = 3 - i - j
        sign = (i - j) * (j - k) * (k - i) // 2
        q = self.quat
        if symmetric:
            a, b, c, d = q[..., 3], q[..., i], q[..., j], q[..., k] * sign
        else:
            a, b = q[..., 3] - q[..., j], q[..., i] + q[..., k] * sign
            c, d = q[..., j] + q[..., 3], q[..., k] * sign - q[..., i]
        mid = 2 * jnp.arctan2(jnp.hypot(c, d), jnp.hypot(a, b))
        half_sum, half_diff = jnp.arctan2(b, a), jnp.arctan2(d, c)
        eps = 1e-7
        lock = (jnp.abs(mid) <= eps) | (jnp.abs(mid - math.pi) <= eps)
        at_pi = jnp.abs(mid - math.pi) <= eps
        degenerate = jnp.where(at_pi, -2 * half_diff, 2 * half_sum)
        first = jnp.where(lock, degenerate, half_sum - half_diff)
        third = jnp.where(lock, 0.0, half_sum + half_diff)
        if not symmetric:
            third, mid = third * sign, mid - math.pi / 2
        if intrinsic:  # reversed back, except that a locked triple keeps its zero last (as JAX)
            first, third = jnp.where(lock, first, third), jnp.where(lock, third, first)
        out = jnp.stack([first, mid, third], -1)
        out = (out + math.pi) % (2 * math.pi) - math.pi
        return jnp.rad2deg(out) if degrees else out

    # -------------------------------------------------------------- operations
    def apply(self, vectors: Array, inverse: bool = False) -> Array:
        m = self.as_matrix()
        if inverse:
            m = jnp.swapaxes(m, -1, -2)
        return jnp.einsum("...ij,...j->...i", m, jnp.asarray(vectors))

    def inv(self) -> "Rotation":
        return Rotation(self.quat * jnp.array([-1.0, -1.0, -1.0, 1.0], dtype=self.quat.dtype))

    def magnitude(self) -> Array:
        return 2 * jnp.arctan2(jnp.linalg.norm(self.quat[..., :3], axis=-1), jnp.abs(self.quat[..., 3]))

    def mean(self, weights: Array | None = None) -> "Rotation":
        """The quaternion maximizing Σ w (q·qi)²: the top eigenvector of Σ w qi qiᵀ."""
        q = jnp.atleast_2d(self.quat)
        w = jnp.ones(q.shape[0], q.dtype) if weights is None else jnp.asarray(weights, q.dtype)
        k = jnp.einsum("i,ij,ik->jk", w, q, q)
        return Rotation(jnp.linalg.eigh(k)[1][:, -1])

    def __mul__(self, other: "Rotation") -> "Rotation":
        return Rotation(_qmul(self.quat, other.quat))

    def __getitem__(self, indexer: Any) -> "Rotation":
        if self.single:
            raise TypeError("Single rotation is not subscriptable.")
        return Rotation(self.quat[indexer])

    def __len__(self) -> int:
        if self.single:
            raise TypeError("Single rotation has no len().")
        return self.quat.shape[0]

    @property
    def single(self) -> bool:
        return self.quat.ndim == 1


class Slerp(NamedTuple):
    """Spherical linear interpolation between key rotations at increasing times."""
    times: Array
    timedelta: Array
    rotations: Rotation
    rotvecs: Array

    @classmethod
    def init(cls, times: Array, rotations: Rotation) -> "Slerp":
        if not isinstance(rotations, Rotation):
            raise TypeError("`rotations` must be a `Rotation` instance.")
        if rotations.single or len(rotations) == 1:
            raise ValueError("`rotations` must be a sequence of at least 2 rotations.")
        t = jnp.asarray(times)
        if t.ndim != 1:
            raise ValueError(f"Expected times to be specified in a 1 dimensional array, got {t.ndim} dimensions.")
        if t.shape[0] != len(rotations):
            raise ValueError(f"Expected number of rotations to be equal to number of timestamps given, "
                             f"got {len(rotations)} rotations and {t.shape[0]} timestamps.")
        dt = jnp.diff(t)
        rotvecs = (rotations[:-1].inv() * rotations[1:]).as_rotvec()
        return cls(t, dt, rotations, rotvecs)

    def __call__(self, times: Array) -> Rotation:
        t = jnp.asarray(times)
        idx = jnp.clip(jnp.searchsorted(self.times, t) - 1, 0, self.timedelta.shape[0] - 1)  # a key time ends its interval
        alpha = (t - self.times[idx]) / self.timedelta[idx]
        return self.rotations[idx] * Rotation.from_rotvec(self.rotvecs[idx] * alpha[..., None])

"""`jax.sharding` on one device: meshes, partition specs and shardings that describe
placing every array whole on the single device (a browser tab has one of each kind).

A program written for many devices runs unchanged: `jax.make_mesh((1,), ('x',))`,
`NamedSharding(mesh, P('x'))`, `jax.device_put(x, sharding)` and `reshard` all keep the
array on the device; a mesh needing more devices than exist raises as JAX does."""
from __future__ import annotations

__all__ = ["AxisType", "Mesh", "NamedSharding", "PartitionSpec", "Sharding", "SingleDeviceSharding",
           "make_mesh", "reshard", "set_mesh", "get_abstract_mesh", "shard_map", "smap", "pmap",
           "make_array_from_single_device_arrays", "make_array_from_process_local_data"]

import contextlib
import enum
import math
from typing import Any, Callable, Sequence

from . import device as _device


class AxisType(enum.Enum):
    """How a mesh axis is sharded (JAX's jax.sharding.AxisType)."""
    Auto = enum.auto()
    Explicit = enum.auto()
    Manual = enum.auto()


class PartitionSpec(tuple):
    """Per array dimension: the mesh axis (or axes, or None) it is split along."""

    def __new__(cls, *parts: Any):
        return super().__new__(cls, parts)

    def __repr__(self) -> str:
        return f"PartitionSpec({', '.join(repr(p) for p in self)})"


class Mesh:
    """Devices arranged on named axes (on one device: every axis has size 1)."""

    def __init__(self, devices: Any, axis_names: Sequence[str], axis_types: Any = None):
        devs = devices if isinstance(devices, (list, tuple)) else getattr(devices, "tolist", lambda: devices)()
        flat = list(_flatten(devs))
        self.axis_names = tuple(axis_names)
        self.shape_tuple = tuple((n, s) for n, s in zip(self.axis_names, _shape(devs)))
        self.devices, self._flat = devs, flat
        self.axis_types = tuple(axis_types) if axis_types is not None else (AxisType.Auto,) * len(self.axis_names)

    @property
    def shape(self) -> dict:
        return dict(self.shape_tuple)

    @property
    def size(self) -> int:
        return len(self._flat)

    @property
    def device_ids(self) -> list:
        return [d.id for d in self._flat]

    def __enter__(self) -> "Mesh":
        _MESHES.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _MESHES.pop()

    def __repr__(self) -> str:
        return f"Mesh({', '.join(f'{n!r}: {s}' for n, s in self.shape_tuple)})"


def _flatten(devs: Any):
    if isinstance(devs, (list, tuple)):
        for d in devs:
            yield from _flatten(d)
    else:
        yield devs


def _shape(devs: Any) -> tuple:
    shape = []
    while isinstance(devs, (list, tuple)):
        shape.append(len(devs))
        devs = devs[0] if devs else None
    return tuple(shape)


_MESHES: list = []


class Sharding:
    """The base of the sharding classes: which device holds which part of an array."""

    @property
    def device_set(self) -> set:
        return set(self._devices())

    def _devices(self) -> list:
        raise NotImplementedError

    def is_fully_replicated(self) -> bool:
        return True

    @property
    def is_fully_addressable(self) -> bool:
        return True

    @property
    def num_devices(self) -> int:
        return len(self.device_set)

    def shard_shape(self, global_shape: Sequence[int]) -> tuple:
        return tuple(global_shape)


class SingleDeviceSharding(Sharding):
    """The whole array on one device."""

    def __init__(self, device: Any, *, memory_kind: str | None = None):
        self._device, self.memory_kind = device, memory_kind

    def _devices(self) -> list:
        return [self._device]

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SingleDeviceSharding) and other._device is self._device

    def __hash__(self) -> int:
        return hash(("single", id(self._device)))

    def __repr__(self) -> str:
        return f"SingleDeviceSharding(device={self._device!r})"


class NamedSharding(Sharding):
    """An array split over `mesh` as `spec` says (on a one-device mesh: whole)."""

    def __init__(self, mesh: Mesh, spec: PartitionSpec = PartitionSpec(), *, memory_kind: str | None = None):
        if not isinstance(spec, PartitionSpec):
            raise TypeError(f"NamedSharding expects a PartitionSpec, got {spec!r}")
        for part in spec:
            for name in (part if isinstance(part, tuple) else (part,)):
                if name is not None and name not in mesh.axis_names:
                    raise ValueError(f"Resource axis: {name} of {spec} is not found in mesh: {mesh.axis_names}.")
        self.mesh, self.spec, self.memory_kind = mesh, spec, memory_kind

    def _devices(self) -> list:
        return list(self.mesh._flat)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, NamedSharding) and other.mesh is self.mesh and tuple(other.spec) == tuple(self.spec)

    def __hash__(self) -> int:
        return hash((id(self.mesh), tuple(self.spec)))

    def __repr__(self) -> str:
        return f"NamedSharding(mesh={self.mesh!r}, spec={self.spec!r})"


def make_mesh(axis_shapes: Sequence[int], axis_names: Sequence[str], *, devices: Any = None,
              axis_types: Any = None) -> Mesh:
    """A mesh of the given axis sizes over the devices (their product must match)."""
    devs = list(devices) if devices is not None else _device.devices()
    need = math.prod(axis_shapes)
    if need != len(devs):
        raise ValueError(f"Number of devices {len(devs)} must equal the product of mesh_shape {tuple(axis_shapes)}")
    nested: Any = devs
    for size in reversed(tuple(axis_shapes)[1:]):
        nested = [nested[i:i + size] for i in range(0, len(nested), size)]
    return Mesh(nested, axis_names, axis_types)


@contextlib.contextmanager
def set_mesh(mesh: Mesh):
    """Make `mesh` the current mesh for the block (shardings by PartitionSpec refer to it)."""
    _MESHES.append(mesh)
    try:
        yield mesh
    finally:
        _MESHES.pop()


def get_abstract_mesh() -> Mesh | None:
    """The mesh set by set_mesh / `with mesh:`, or None."""
    return _MESHES[-1] if _MESHES else None


def reshard(x: Any, out_shardings: Any) -> Any:
    """x laid out as `out_shardings` says: on one device, x itself."""
    return x


# ---------------------------------------------------------------- mapping over devices
def _size_one_axes(f: Callable, names: Sequence[Any]) -> Callable:
    """f under one vmap of extent 1 per name: collectives over those names see one member."""
    from .api import vmap  # noqa: PLC0415  (sharding loads lazily; api would load it eagerly)
    from .tree_util import tree_map  # noqa: PLC0415

    def run(*args: Any) -> Any:
        g = f
        for name in reversed(tuple(names)):
            g = vmap(g, axis_name=name)
        expand = lambda v: v[None] if hasattr(v, "shape") else _np_expand(v)  # noqa: E731
        for _ in names:
            args = tree_map(expand, args)
        out = g(*args)
        for _ in names:
            out = tree_map(lambda v: v[0], out)
        return out
    return run


def _np_expand(v: Any) -> Any:
    from .. import numpy as jnp  # noqa: PLC0415
    return jnp.asarray(v)[None]


def shard_map(f: Callable | None = None, /, *, out_specs: Any, in_specs: Any = None, mesh: Any = None,
              axis_names: Any = frozenset(), check_vma: bool = True) -> Callable:
    """f on each device's shard: on one device, on the whole arrays, with the mesh's axes
    (all of size 1) bound for collectives (psum over a mesh axis sums one member)."""
    if f is None:
        return lambda g: shard_map(g, out_specs=out_specs, in_specs=in_specs, mesh=mesh, axis_names=axis_names,
                                   check_vma=check_vma)
    mesh = mesh if mesh is not None else get_abstract_mesh()
    if mesh is None:
        raise ValueError("shard_map requires a mesh: pass mesh= or use jax.set_mesh")
    if mesh.size != 1:
        raise ValueError(f"jaxweb runs on one device; this mesh has {mesh.size}")
    return _size_one_axes(f, mesh.axis_names)


def smap(f: Callable, /, *, in_axes: Any = 0, out_axes: Any = 0, axis_name: Any = None) -> Callable:
    """shard_map over one (size-1) mesh axis, by in/out axes."""
    return _size_one_axes(f, (axis_name,) if axis_name is not None else ())


def pmap(fun: Callable, axis_name: Any = None, *, in_axes: Any = 0, out_axes: Any = 0,
         static_broadcasted_argnums: Any = (), devices: Any = None, backend: Any = None,
         axis_size: int | None = None, donate_argnums: Any = (), global_arg_shapes: Any = None) -> Callable:
    """vmap over the devices: the mapped axis must not exceed the one device, as in JAX."""
    from .api import vmap  # noqa: PLC0415
    from .tree_util import tree_flatten  # noqa: PLC0415
    mapped = vmap(fun, in_axes=in_axes, out_axes=out_axes, axis_name=axis_name)
    count = len(devices) if devices is not None else len(_device.devices())

    def run(*args: Any) -> Any:
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        sizes = [leaf.shape[a] for arg, a in zip(args, axes) if a is not None
                 for leaf in tree_flatten(arg)[0] if hasattr(leaf, "shape")]
        n = sizes[0] if sizes else (axis_size or 1)
        if n > count:
            raise ValueError(f"compiling computation that requires {n} logical devices, but only {count} "
                             f"XLA devices are available (num_replicas={n})")
        return mapped(*args)
    return run


def make_array_from_single_device_arrays(shape: Sequence[int], sharding: Any, arrays: Sequence[Any], *,
                                         dtype: Any = None) -> Any:
    """The global array from its per-device pieces: on one device, the one piece."""
    from .. import numpy as jnp  # noqa: PLC0415
    if len(arrays) != 1:
        raise ValueError(f"jaxweb runs on one device; got {len(arrays)} single-device arrays")
    out = jnp.asarray(arrays[0], dtype=dtype)
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"the array of shape {out.shape} does not make up the global shape {tuple(shape)}")
    return out


def make_array_from_process_local_data(sharding: Any, local_data: Any, global_shape: Any = None) -> Any:
    """The global array from this process's data: with one process, that data."""
    from .. import numpy as jnp  # noqa: PLC0415
    out = jnp.asarray(local_data)
    if global_shape is not None and tuple(global_shape) != tuple(out.shape):
        raise ValueError(f"local data of shape {out.shape} is not the global shape {tuple(global_shape)}")
    return out

"""Compiling a JAX function for a slice you do not have, to predict it with hloroof.

    import hloroof, hloroof.jax
    from jax.sharding import PartitionSpec as P

    compiled = hloroof.jax.compile_for(train_step, params, batch, target="tpu_v5p:2x2x2",
                                       mesh_axes={"fsdp": 8},
                                       in_specs=(P("fsdp"), P("fsdp")))
    p = hloroof.predict(compiled)                 # tpu_v5p, 2x2x2, read from `compiled`
    hloroof.memory(compiled).capacity.fits        # the step's peak against v5p's HBM

TPU targets compile offline with libtpu (``pip install libtpu``; checked with jax 0.10.2,
jaxlib 0.10.2 and libtpu 0.0.52): jax.experimental.topologies gives the slice's devices, with
their device kind and chip coordinates, and XLA's TPU compiler compiles for them on any x86
Linux machine. ``"h100:8"`` compiles for one node of 8 H100s (``"h200:32x8"``: 32 nodes of 8
H200s; ``b200`` likewise) with JAX's CUDA plugin (``pip install jax-cuda12-plugin
jax-cuda12-pjrt nvidia-cuda-nvcc-cu12``; cuDNN's attention needs ``nvidia-cudnn-cu12`` too),
no GPU needed, from the target descriptions below, in a process started with
``JAX_PLATFORMS=cpu``; other GPUs take ``gpu_target_config=`` (a GpuTargetConfigProto in text
form).
"""

from __future__ import annotations

import functools
import os
import pathlib
import tempfile
from typing import Any, Callable, Dict, Mapping, Optional, Sequence, Tuple, Union

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from . import _hloroof

# hloroof's TPU names -> libtpu's topology names (get_topology_desc's topology_name prefix).
_LIBTPU_NAMES = {"tpu_v4": "v4", "tpu_v5e": "v5e", "tpu_v5p": "v5p", "tpu_v6e": "v6e",
                 "tpu7x": "tpu7x"}

MeshAxes = Union[Mapping[str, int], Sequence[Tuple[str, int]]]

# What XLA's GPU compiler needs to know of a GPU (a GpuTargetConfigProto, text form): the
# figures cudaGetDeviceProperties reports for it. Hopper and Blackwell alike: 228 KiB shared
# memory per SM of which 227 KiB per block, 64K registers and 2048 threads per SM. The CUDA
# runtime is the 12.9 of nvidia-cuda-nvcc-cu12 (python/requirements-test.txt): XLA's GPU compiler
# writes fp8 products as cuBLASLt fp8 GEMMs only for a runtime it knows to have them.
_TARGET_CONFIG = """
gpu_device_info {{
  threads_per_block_limit: 1024
  threads_per_warp: 32
  shared_memory_per_block: 49152
  shared_memory_per_core: 233472
  shared_memory_per_block_optin: 232448
  threads_per_core_limit: 2048
  core_count: {sms}
  fpus_per_core: 128
  block_dim_limit_x: 2147483647
  block_dim_limit_y: 65535
  block_dim_limit_z: 65535
  memory_bandwidth: {bandwidth}
  l2_cache_size: {l2}
  clock_rate_ghz: {ghz}
  device_memory_size: {memory}
  cuda_compute_capability {{ major: {major} }}
  registers_per_core_limit: 65536
  registers_per_block_limit: 65536
}}
platform_name: "CUDA"
dnn_version_info {{ major: {dnn[0]} minor: {dnn[1]} patch: {dnn[2]} }}
runtime_version {{ major: 12 minor: 9 patch: 0 }}
device_description_str: "{name}"
"""
# An H100 SXM 80GB (NVIDIA's H100 architecture whitepaper gives the same): 132 SMs, compute
# capability 9.0, 50 MiB L2, 1.98 GHz boost clock, 3.35 TB/s.
H100_TARGET_CONFIG = _TARGET_CONFIG.format(
    sms=132, bandwidth=3352320000000, l2=52428800, ghz=1.98, memory=84942979072, major=9,
    dnn=(8, 9, 4), name="NVIDIA H100 80GB HBM3")
# An H200 SXM: the H100's die with 141 GB of HBM3e at 4.8 TB/s (NVIDIA's H200 datasheet;
# data/hardware/h200.json).
H200_TARGET_CONFIG = _TARGET_CONFIG.format(
    sms=132, bandwidth=4800000000000, l2=52428800, ghz=1.98, memory=141000000000, major=9,
    dnn=(9, 8, 0), name="NVIDIA H200")
# A B200 of an HGX B200 node: 148 SMs of compute capability 10.0, 126 MB L2, 180 GB of its HBM3e
# usable at 8 TB/s, about 1.97 GHz boost (NVIDIA's Blackwell datasheets; data/hardware/b200.json);
# cuDNN 9.8, the first for Blackwell.
B200_TARGET_CONFIG = _TARGET_CONFIG.format(
    sms=148, bandwidth=8000000000000, l2=126000000, ghz=1.965, memory=180000000000, major=10,
    dnn=(9, 8, 0), name="NVIDIA B200")
_GPU_TARGET_CONFIGS = {"h100": H100_TARGET_CONFIG, "h200": H200_TARGET_CONFIG,
                       "b200": B200_TARGET_CONFIG}


def _split_target(target: str) -> Tuple[str, str]:
    name, sep, shape = target.partition(":")
    if not sep or not shape:
        raise ValueError(f"target {target!r}: expected DEVICE:TOPOLOGY, e.g. 'tpu_v5e:2x2', "
                         f"'tpu_v5p:2x2x2', 'tpu7x:2x2x1', 'tpu_v6e:16x16,slices=2', 'h100:8'")
    return name, shape


def split_slices(target: str) -> Tuple[str, int]:
    """(the target of one slice, the slice count) of a TPU target: ``"tpu_v6e:16x16,slices=2"``
    is two slices of ``"tpu_v6e:16x16"`` joined by the data-centre network (DCN), as hloroof's
    device strings write them; a target without ``,slices=N`` is one slice."""
    one, *options = target.split(",")
    slices = 1
    for option in options:
        key, sep, value = option.partition("=")
        if key != "slices" or not sep or not value.isdigit() or int(value) < 1:
            raise ValueError(f"target {target!r}: unknown option {option!r}; expected "
                             f"',slices=N' (N slices over DCN, e.g. 'tpu_v6e:16x16,slices=2')")
        slices = int(value)
    return one, slices


def _gpu_devices(spec: Any, shape: str, target_config: Optional[str]) -> Tuple[Any, ...]:
    config = (target_config or _GPU_TARGET_CONFIGS.get(spec.name) or
              _GPU_TARGET_CONFIGS.get(spec.base or ""))  # a device file: its base GPU's
    if config is None:
        raise ValueError(f"no GPU target description for {spec.name} here (only "
                         f"{', '.join(_GPU_TARGET_CONFIGS)}): pass gpu_target_config=")
    nodes, _, gpus = shape.rpartition("x")
    from jax.experimental import topologies
    try:
        topology = topologies.get_topology_desc(platform="cuda", target_config=config,
                                                topology=f"1x{nodes or 1}x{gpus}")
    except Exception as error:  # no CUDA plugin, a bad config: JAX's own message
        hint = ("; without a GPU, set JAX_PLATFORMS=cpu before importing jax (else the CUDA "
                "plugin fails to start and registers no topology)"
                if os.environ.get("JAX_PLATFORMS") != "cpu" else "")
        raise ValueError(f"JAX does not compile for {spec.name}:{shape} without a GPU here: "
                         f"{type(error).__name__}: {error}{hint}") from error
    return tuple(topology.devices)


@functools.lru_cache(maxsize=None)
def topology_devices(target: str, gpu_target_config: Optional[str] = None) -> Tuple[Any, ...]:
    """The devices of `target` (``"tpu_v5e:2x2"``, ``"h100:8"``: an hloroof device with its
    slice or node shape), as the compiler describes them without the hardware: each has
    ``device_kind`` (and, on TPU, ``coords`` and ``core_on_chip``). Raises ValueError for a
    device hloroof does not know or JAX does not compile for, with the compiler's message."""
    one_slice, slices = split_slices(target)
    name, shape = _split_target(one_slice)
    spec = _hloroof._device(name)
    if spec.kind == "gpu":
        if slices > 1:
            raise ValueError(f"target {target!r}: ',slices=N' is for TPU slices; GPU nodes are "
                             f"NODESxGPUS (e.g. 'h100:2x8')")
        return _gpu_devices(spec, shape, gpu_target_config)
    libtpu_name = _LIBTPU_NAMES.get(spec.name)
    if libtpu_name is None:
        raise ValueError(
            f"target {target!r}: no offline compiler for {spec.name} here; TPU targets are "
            f"{', '.join(sorted(_LIBTPU_NAMES))}")
    # libtpu asks the cloud metadata server which TPU it runs on unless told not to, and holds
    # /tmp/libtpu_lockfile (one process per machine) unless multiple loads are allowed: the
    # offline compiler touches no TPU, so processes that compile side by side need not wait.
    os.environ.setdefault("TPU_SKIP_MDS_QUERY", "1")
    os.environ.setdefault("ALLOW_MULTIPLE_LIBTPU_LOAD", "1")
    from jax.experimental import topologies
    # Several slices: libtpu's num_slices, each device then with its slice_index (its id counts
    # from 100000 x (slice + 1)).
    extra = {"num_slices": slices} if slices > 1 else {}
    try:
        topology = topologies.get_topology_desc(platform="tpu",
                                                topology_name=f"{libtpu_name}:{shape}", **extra)
    except Exception as error:  # JaxRuntimeError, RuntimeError: libtpu's own message
        what = f"{libtpu_name}:{shape}" + (f" x {slices} slices" if slices > 1 else "")
        raise ValueError(f"libtpu does not compile for {what}: {error}") from error
    return tuple(topology.devices)


def mesh_for(target: str, mesh_axes: Optional[MeshAxes] = None,
             gpu_target_config: Optional[str] = None) -> Mesh:
    """A mesh over `target`'s devices with `mesh_axes` (``{"data": 2, "model": 2}``, sizes
    multiplying to the device count; default: one axis "data" over all devices), laid out on
    the chips by JAX's ``mesh_utils.create_device_mesh`` where it can, else in device order."""
    devices = topology_devices(target, gpu_target_config)
    axes = list((mesh_axes or {"data": len(devices)}).items()
                if isinstance(mesh_axes, Mapping) or mesh_axes is None else mesh_axes)
    names = tuple(name for name, _ in axes)
    shape = tuple(int(size) for _, size in axes)
    if int(np.prod(shape)) != len(devices):
        cores = 1 + max(int(getattr(d, "core_on_chip", 0)) for d in devices)
        per_core = (f" ({len(devices) // cores} chips, {cores} devices a chip: libtpu gives "
                    f"each TensorCore a device of its own)" if cores > 1 else "")
        raise ValueError(f"mesh_axes {dict(axes)} hold {int(np.prod(shape))} devices; "
                         f"{target} has {len(devices)}{per_core}")
    slices = split_slices(target)[1]
    if slices > 1:
        return Mesh(_hybrid_grid(target, dict(axes), shape, devices, slices), names)
    try:
        from jax.experimental import mesh_utils
        grid = mesh_utils.create_device_mesh(shape, devices=list(devices))
    except Exception:  # a shape the physical layout does not take: device order
        grid = np.array(devices, dtype=object).reshape(shape)
    return Mesh(grid, names)


def _hybrid_grid(target: str, axes: Mapping[str, int], shape: Tuple[int, ...],
                 devices: Sequence[Any], slices: int) -> np.ndarray:
    """The devices of several slices as a mesh of `shape` whose first axis spans the slices
    (MaxText's dcn_*_parallelism on its outermost axis): that axis is the slice index times
    its members in one slice, so mesh position i (a program's partition id) lies in slice
    i // (devices per slice), as hloroof's topology numbers them (the slice axis last). Each
    slice is laid out as one slice alone would be."""
    first = shape[0]
    if first % slices:
        raise ValueError(f"mesh_axes {dict(axes)}: the first axis spans the {slices} slices of "
                         f"{target} over DCN, so its size ({first}) must be a multiple of "
                         f"{slices}")
    inner = (first // slices,) + tuple(shape[1:])
    by_slice: Dict[int, list] = {}
    for d in devices:
        by_slice.setdefault(int(getattr(d, "slice_index", 0)), []).append(d)
    if len(by_slice) != slices:
        raise ValueError(f"target {target}: libtpu gave {len(by_slice)} slices, not {slices}")
    grids = []
    for index in sorted(by_slice):
        members = by_slice[index]
        try:
            from jax.experimental import mesh_utils
            grids.append(mesh_utils.create_device_mesh(inner, devices=members))
        except Exception:  # a shape the physical layout does not take: device order
            grids.append(np.array(members, dtype=object).reshape(inner))
    return np.concatenate(grids, axis=0)


def _is_spec(x: Any) -> bool:
    return x is None or isinstance(x, PartitionSpec)


def _abstract(mesh: Mesh, specs: Any, args: Sequence[Any]) -> Tuple[Any, ...]:
    """ShapeDtypeStructs of `args` (arrays, ShapeDtypeStructs, pytrees of them) sharded by
    `specs`: one entry per argument, each a PartitionSpec (or None: replicated) for the whole
    argument or a pytree of them matching its structure."""
    if specs is None:
        specs = (None,) * len(args)
    specs = tuple(specs)
    if len(specs) != len(args):
        raise ValueError(f"in_specs has {len(specs)} entries for {len(args)} arguments")

    def leaf(spec: Optional[PartitionSpec], subtree: Any) -> Any:
        sharding = NamedSharding(mesh, spec if spec is not None else PartitionSpec())
        return jax.tree.map(
            lambda x: jax.ShapeDtypeStruct(np.shape(x), x.dtype, sharding=sharding), subtree)

    return tuple(jax.tree.map(leaf, spec, arg, is_leaf=_is_spec)
                 for spec, arg in zip(specs, args))


def compile_for(fn: Callable[..., Any], *args: Any, target: str = "tpu_v5p:2x2x2",
                mesh_axes: Optional[MeshAxes] = None, in_specs: Any = None,
                out_specs: Any = None, static_argnums: Sequence[int] = (),
                donate_argnums: Sequence[int] = (),
                gpu_target_config: Optional[str] = None) -> Any:
    """Compiles `fn` for `target` without its hardware and returns the ``jax.stages.Compiled``.

    `args` give shapes and dtypes only (arrays, ``jax.ShapeDtypeStruct``, pytrees of them; the
    static ones as values). `target` is an hloroof device with its slice: ``"tpu_v5e:2x2"``,
    ``"tpu_v5p:2x2x2"``, ``"tpu_v6e:2x4"``, ``"tpu7x:2x2x1"``, or ``"h100:8"`` (one node of
    8 GPUs; ``"h100:2x8"`` two nodes) with JAX's CUDA plugin; a TPU slice counts chips
    (``tpu_v4:2x2x1`` is 4 chips, 8 devices: libtpu gives each v4 or tpu7x TensorCore a
    device). ``",slices=N"`` joins N such slices over DCN (``"tpu_v6e:16x16,slices=2"``: 512
    chips), libtpu compiling for all of them. `mesh_axes` names the mesh over the slice's
    devices (``{"fsdp": 4, "model": 2}``; default one axis "data"); over several slices the
    first axis spans them (a multiple of N: the slice index outermost, as MaxText's
    dcn_*_parallelism lays it out).
    `in_specs`: one PartitionSpec (or pytree of them, or None: replicated) per argument;
    `out_specs` likewise for the outputs (None: XLA chooses). Inside `fn`,
    ``jax.lax.with_sharding_constraint(x, PartitionSpec(...))`` refers to the same mesh.
    Raises ValueError when JAX does not compile for the target here, with its message.
    """
    mesh = mesh_for(target, mesh_axes, gpu_target_config)
    static = set(static_argnums)
    dynamic = [a for i, a in enumerate(args) if i not in static]
    if in_specs is not None and len(tuple(in_specs)) == len(args) and static:
        in_specs = tuple(s for i, s in enumerate(in_specs) if i not in static)
    abstract = iter(_abstract(mesh, in_specs, dynamic))
    lowered_args = [a if i in static else next(abstract) for i, a in enumerate(args)]
    out_shardings = None
    if out_specs is not None:
        out_shardings = jax.tree.map(
            lambda s: NamedSharding(mesh, s if s is not None else PartitionSpec()),
            out_specs, is_leaf=_is_spec)
    jitted = jax.jit(fn, out_shardings=out_shardings, static_argnums=tuple(static_argnums),
                     donate_argnums=tuple(donate_argnums))
    # The mesh in context: a bare PartitionSpec in `fn`'s sharding constraints refers to it.
    # XLA's own dump of the optimized program is kept beside the compiled object: with libtpu
    # 0.0.52 and jaxlib 0.10.2, as_text() fails on programs compiled for v5p, v6e and tpu7x
    # ("async-update instruction should have 1 operands but sees 3": jaxlib rebuilds the
    # module from libtpu's proto and rejects it), while the compiler prints it fine.
    with jax.set_mesh(mesh), tempfile.TemporaryDirectory(prefix="hloroof-") as dump:
        compiled = jitted.lower(*lowered_args).compile(compiler_options={"xla_dump_to": dump})
        text = _optimized_text(pathlib.Path(dump))
    if text is not None:
        try:
            compiled._hloroof_hlo_text = text
        except AttributeError:  # an object that takes no attributes: as_text() alone
            pass
    return compiled


def _optimized_text(dump: pathlib.Path) -> Optional[str]:
    """The optimized module XLA dumped (``*.after_optimizations.txt``; the largest, when a
    compile dumped several), or None."""
    found = sorted(dump.glob("*.after_optimizations.txt"), key=lambda p: p.stat().st_size)
    return found[-1].read_text() if found else None

"""GPU devices for JAX to compile for, with no GPU here: JAX's CUDA plugin given hloroof's
description of the GPU (`hloroof.jax.topology_devices`). hloroof's Python module is the installed
one, else this checkout's build/python. Scripts import it after putting tools/ on their path:

    from gpu_devices import gpu_devices
    devices = gpu_devices("h100:2x8")   # two nodes of eight H100s
"""

import pathlib
import sys


def gpu_devices(topology: str) -> list:
    """The devices of `topology` (a GPU and its nodes x GPUs, as hloroof names them)."""
    try:
        import hloroof.jax
    except ImportError:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "build" / "python"))
        import hloroof.jax
    return hloroof.jax.topology_devices(topology)

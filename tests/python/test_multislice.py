"""Multi-slice TPU targets: compile_for over several slices joined by DCN, and the prediction
of the collectives that cross them (libtpu's megascale send/recv pairs)."""
import importlib.util
import os

import pytest

import hloroof
import hloroof.jax
from hloroof.sweep import _compile

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

needs_libtpu = pytest.mark.skipif(importlib.util.find_spec("libtpu") is None,
                                  reason="libtpu is not installed")

TARGET = "tpu_v5e:2x2,slices=2"


def test_a_target_names_its_slices():
    assert hloroof.jax.split_slices("tpu_v6e:16x16,slices=2") == ("tpu_v6e:16x16", 2)
    assert hloroof.jax.split_slices("tpu_v6e:16x16") == ("tpu_v6e:16x16", 1)
    for bad in ("tpu_v6e:4x4,slices=0", "tpu_v6e:4x4,slice=2", "tpu_v6e:4x4,slices=two"):
        with pytest.raises(ValueError, match=r"expected ',slices=N'"):
            hloroof.jax.split_slices(bad)
    # The sweep counts every slice's chips: 16 x 16 x 2.
    assert _compile.chips_of("tpu_v6e:16x16,slices=2") == 512
    assert _compile.chips_of("tpu7x:4x4x4") == 64


def test_gpu_targets_take_no_slices():
    with pytest.raises(ValueError, match=r"',slices=N' is for TPU slices"):
        hloroof.jax.topology_devices("h100:2x8,slices=2")


@needs_libtpu
def test_libtpu_gives_each_slice_its_devices():
    devices = hloroof.jax.topology_devices(TARGET)
    assert len(devices) == 8
    assert sorted({d.slice_index for d in devices}) == [0, 1]
    # The first mesh axis spans the slices: slice 0's devices first, then slice 1's.
    mesh = hloroof.jax.mesh_for(TARGET, {"data": 8})
    assert [d.slice_index for d in mesh.devices.flat] == [0, 0, 0, 0, 1, 1, 1, 1]
    with pytest.raises(ValueError, match=r"spans the 2 slices .* must be a multiple of 2"):
        hloroof.jax.mesh_for(TARGET, {"data": 1, "model": 8})


def _loss(w, x):
    return jnp.mean(jnp.tanh(x @ w) ** 2)


def _step(w, x):
    return w - 0.1 * jax.grad(_loss)(w, x)


@pytest.fixture(scope="module")
def two_slices():
    # Data parallel over both slices: each device's gradient of w (f32 1024 x 1024, 4 MiB) is
    # summed over all 8 devices. libtpu compiles one slice's program (4 partitions): a
    # reduce-scatter inside the slice, then an all-reduce of each device's 1 MiB share across
    # the slices by its megascale runtime (a send and a recv of the share), then an all-gather.
    args = (jax.ShapeDtypeStruct((1024, 1024), jnp.float32),
            jax.ShapeDtypeStruct((64, 1024), jnp.float32))
    return hloroof.jax.compile_for(_step, *args, target=TARGET, mesh_axes={"data": 8},
                                   in_specs=(None, P("data")))


def _dcn_ops(prediction):
    return [op for op in prediction.ops
            if op.collective is not None and "DCN ALL_REDUCE" in op.collective.formula]


@needs_libtpu
def test_a_two_slice_program_predicts_its_dcn_all_reduce(two_slices):
    p = hloroof.predict(two_slices)
    assert (p.device, p.topology) == ("tpu_v5e", "2x2,slices=2")
    recv = [op for op in _dcn_ops(p) if op.opcode == "recv"]
    send = [op for op in _dcn_ops(p) if op.opcode == "send"]
    assert len(recv) == 1 and len(send) == 1
    # The recv carries it: B = 1 MiB a device, S = 2 slices, tpu_v5e's DCN 3.125e9 B/s a chip
    # (2 x 100 Gb/s NICs per 8-chip host) and 20 us a pass (assumed):
    # 2 x 1,048,576 x (2-1)/2 / 3.125e9 + 2 x 20e-6 = 335.54 us + 40 us = 375.54 us.
    assert recv[0].collective.payload_bytes == 1_048_576
    assert recv[0].collective.time_s == pytest.approx(2 * 1_048_576 * 0.5 / 3.125e9 + 40e-6,
                                                      rel=1e-9)
    assert send[0].collective.time_s == 0
    assert "W_dcn = 3.125e+09 B/s" in recv[0].explanation
    # An async pair: its recv-done waits for it, nothing to hide it behind in this step.
    done = next(op for op in p.ops if op.opcode == "recv-done")
    assert done.async_.latency_s == pytest.approx(recv[0].collective.time_s, rel=1e-9)
    # One slice's program (4 partitions) runs on both slices: the step's 8 devices share the
    # model FLOPs (MFU: model FLOPs over 8 devices' peak for the step, not 4 devices').
    assert p.devices == 8
    m = hloroof.predict(two_slices, model_flops=1e12)
    assert m.mfu == pytest.approx(1e12 / (8 * m.step_time_s * m.peak_flop_rate), rel=1e-6)
    # The same program's text on the same target string.
    again = hloroof.predict(two_slices._hloroof_hlo_text, TARGET)
    assert [op.collective.time_s for op in _dcn_ops(again)
            if op.opcode == "recv"] == [recv[0].collective.time_s]


@needs_libtpu
def test_more_slices_move_more_of_each_share(two_slices):
    # 4 slices: (S-1)/S = 3/4 of the share per pass, 1.5 times the 2-slice bandwidth time.
    text = two_slices._hloroof_hlo_text
    four = hloroof.predict(text, "tpu_v5e:2x2,slices=4")
    recv = [op for op in _dcn_ops(four) if op.opcode == "recv"]
    assert recv[0].collective.time_s == pytest.approx(2 * 1_048_576 * 0.75 / 3.125e9 + 40e-6,
                                                      rel=1e-9)


@needs_libtpu
def test_a_one_slice_target_says_it_times_two(two_slices):
    one = hloroof.predict(two_slices._hloroof_hlo_text, "tpu_v5e:2x2")
    recv = [op for op in _dcn_ops(one) if op.opcode == "recv"]
    assert recv[0].collective.time_s == pytest.approx(2 * 1_048_576 * 0.5 / 3.125e9 + 40e-6,
                                                      rel=1e-9)
    assert any("timed as 2 slices" in a for a in one.assumptions)

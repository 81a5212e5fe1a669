"""hloroof on real JAX objects: Lowered and Compiled, compiled for the CPU here and offline for
TPU slices (libtpu) and an H100 node (JAX's CUDA plugin), as hloroof.jax.compile_for does.

The tests that need JAX skip without it; tools/test.sh runs them under the pinned environment
of python/requirements-test.txt.
"""

import importlib.util
import os
import pathlib
import re
import subprocess

import pytest

import hloroof
from hloroof import _jax_objects

# Without a GPU, JAX's CUDA plugin registers its compile-only topologies only when JAX does not
# try to start a CUDA backend: the CPU alone, chosen before JAX is imported.
os.environ.setdefault("JAX_PLATFORMS", "cpu")
try:
    import jax
    import jax.numpy as jnp
    from jax.sharding import PartitionSpec as P

    import hloroof.jax
except ImportError:  # outside tools/test.sh's environment: the tests that need JAX skip
    jax = None
needs_jax = pytest.mark.skipif(jax is None, reason="needs jax (python/requirements-test.txt)")
needs_libtpu = pytest.mark.skipif(jax is None or importlib.util.find_spec("libtpu") is None,
                                  reason="needs jax and libtpu (python/requirements-test.txt)")
needs_cuda_plugin = pytest.mark.skipif(
    jax is None or importlib.util.find_spec("jax_plugins.xla_cuda12") is None,
    reason="needs JAX's CUDA plugin (python/requirements-test.txt)")

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("HLOROOF_CLI")


# ---- One version number.

def test_version_is_the_cmake_project_version():
    cmake = (SOURCE / "CMakeLists.txt").read_text()
    project = re.search(r"project\(hloroof VERSION ([0-9.]+)", cmake).group(1)
    assert hloroof.__version__ == project
    # pyproject.toml reads the version with this regex: it must find the same number.
    pyproject = (SOURCE / "pyproject.toml").read_text()
    regex = re.search(r"^regex = '(.*)'$", pyproject, re.M).group(1)
    assert re.search(regex, cmake).group("value") == project


def test_cli_version_is_the_package_version():
    if CLI is None:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    for flag in ("--version", "version"):
        out = subprocess.run([CLI, flag], capture_output=True, text=True, check=True).stdout
        assert out == f"hloroof {hloroof.__version__}\n"


# ---- Device kinds and slices, from stand-ins for JAX devices.

@pytest.mark.parametrize("kind, name", [
    ("TPU v4", "tpu_v4"), ("TPU v5 lite", "tpu_v5e"), ("TPU v5e", "tpu_v5e"),
    ("TPU v5", "tpu_v5p"), ("TPU v5p", "tpu_v5p"), ("TPU v6 lite", "tpu_v6e"),
    ("TPU7x", "tpu7x"), ("NVIDIA H100 80GB HBM3", "h100"), ("NVIDIA A100-SXM4-80GB", "a100"),
    ("NVIDIA H200", "h200"), ("NVIDIA B200", "b200")])
def test_device_kinds_name_their_device(kind, name):
    assert _jax_objects.device_for_kind(kind) == (name, None)
    assert hloroof.device(name).name == name


def test_other_models_of_a_gpu_are_assumed_and_the_cpu_has_no_spec():
    name, note = _jax_objects.device_for_kind("NVIDIA H100 PCIe")
    assert name == "h100" and "'NVIDIA H100 PCIe' has no spec of its own" in note
    assert _jax_objects.device_for_kind("cpu") == (None, None)
    assert _jax_objects.device_for_kind("TPU v4 lite") == (None, None)


class Device:
    def __init__(self, coords, core=0):
        self.coords, self.core_on_chip = coords, core


def test_a_2d_slice_from_chip_coordinates():
    # v5e 2x2 as libtpu lists it: ids 0..3 at (0,0,0), (1,0,0), (0,1,0), (1,1,0).
    devices = [Device((0, 0, 0)), Device((1, 0, 0)), Device((0, 1, 0)), Device((1, 1, 0))]
    options, note = _jax_objects.tpu_slice(devices, "tpu_v5e")
    assert note is None
    assert options == {"topology": "2x2",
                       "device_coordinates": [[0, 0], [1, 0], [0, 1], [1, 1]]}


def test_a_3d_slice_with_two_devices_per_chip():
    # tpu7x 2x2x1: two TensorCores (core_on_chip 0, 1) per chip, 8 devices.
    chips = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    devices = [Device(c, core) for c in chips for core in (0, 1)]
    options, note = _jax_objects.tpu_slice(devices, "tpu7x")
    assert note is None and options["topology"] == "2x2x1"
    assert options["device_coordinates"][:3] == [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]


def test_a_megacore_slice_with_a_device_per_tensorcore():
    # tpu_v4 2x2x1 as libtpu's offline compiler lists it: 4 chips, each TensorCore a device
    # (core_on_chip 0, 1), where the hardware runs each chip as one megacore device.
    chips = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]
    devices = [Device(c, core) for c in chips for core in (0, 1)]
    options, note = _jax_objects.tpu_slice(devices, "tpu_v4")
    assert note is None and options["topology"] == "2x2x1"
    assert options["device_coordinates"][:3] == [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]
    # One device a chip: the megacore slice, no core coordinate.
    options, note = _jax_objects.tpu_slice([Device(c) for c in chips], "tpu_v4")
    assert note is None and options["topology"] == "2x2x1"
    assert options["device_coordinates"][1] == [1, 0, 0]


def test_devices_that_are_not_a_whole_slice_are_said_so():
    devices = [Device((0, 0, 0)), Device((1, 0, 0)), Device((0, 1, 0))]  # an L of 3 chips
    options, note = _jax_objects.tpu_slice(devices, "tpu_v5e")
    assert options == {} and "not a whole tpu_v5e slice" in note


# ---- Real JAX objects.

def _step(x, w):
    return jnp.tanh(x @ w).sum()


def _abstract_args():
    return (jax.ShapeDtypeStruct((256, 512), jnp.bfloat16),
            jax.ShapeDtypeStruct((512, 128), jnp.bfloat16))


@pytest.fixture(scope="module")
def cpu_lowered():
    return jax.jit(_step).lower(jnp.ones((256, 512), jnp.float32),
                                jnp.ones((512, 128), jnp.float32))


@needs_jax
def test_a_cpu_compiled_object_is_predicted_on_the_default_device(cpu_lowered):
    p = hloroof.predict(cpu_lowered.compile())
    assert p.device == "tpu_v5e"
    assert "compiled for the CPU, which no built-in device spec describes" in p.assumptions[0]
    # The device is a guess: a warning, which the report shows above its figures.
    assert any("predicted on tpu_v5e" in w for w in p.warnings)


class _PlainText:
    """A Compiled whose program text carries no mark of XLA:CPU."""

    def __init__(self, compiled):
        self._compiled = compiled

    def as_text(self):
        return "HloModule m\nENTRY e { ROOT p = f32[8] parameter(0) }"

    def __getattr__(self, name):
        return getattr(self._compiled, name)


@needs_jax
def test_a_cpu_compiled_object_on_a_named_device_is_warned_of(cpu_lowered):
    compiled = cpu_lowered.compile()
    for device, kind in (("h100", "a GPU"), ("tpu_v5e:2x2", "a TPU")):
        # XLA:CPU's own backend config says so in the text, ...
        p = hloroof.predict(compiled, device)
        said = f"and is predicted on {device.split(':')[0]}, {kind}"
        assert any(w.startswith("the module was compiled for the CPU (backend config") and said in w
                   for w in p.warnings), p.warnings
        # ... and where the text does not, the compiled object's devices do.
        plain = hloroof.predict(_PlainText(compiled), device)
        assert any(w.startswith("the module was compiled for the CPU (the JAX object's devices) "
                                + said) for w in plain.warnings), plain.warnings
    assert any("compiled for the CPU" in w
               for w in hloroof.memory(_PlainText(compiled), "h100").warnings)


@needs_jax
def test_a_lowered_object_is_compiled_first(cpu_lowered):
    p = hloroof.predict(cpu_lowered, "h100")
    assert p.device == "h100" and p.step_time_s > 0
    # f32[256,512] x f32[512,128]: 2 * 256 * 512 * 128 = 33,554,432 FLOPs.
    assert hloroof.cost(cpu_lowered).totals.flops >= 33_554_432


class _CountingPrints:
    """A Compiled that counts how often its program is printed (as_text())."""

    def __init__(self, compiled):
        self._compiled = compiled
        self.prints = 0

    def as_text(self):
        self.prints += 1
        return self._compiled.as_text()

    def __getattr__(self, name):
        return getattr(self._compiled, name)


@needs_jax
def test_a_compiled_object_is_printed_once_and_predicted_as_its_text(cpu_lowered):
    compiled = _CountingPrints(cpu_lowered.compile())
    first = hloroof.predict(compiled)
    again = hloroof.predict(compiled)
    hloroof.memory(compiled)
    module = hloroof.parse(compiled)
    assert compiled.prints == 1
    # What is read once is given to each call anew: the notes are not said twice.
    assert again.assumptions == first.assumptions
    assert again.warnings == first.warnings
    # The same program through its text: the same step and ops.
    text = compiled._compiled.as_text()
    from_text = hloroof.predict(text, first.device)
    assert (again.step_time_s, len(again.ops)) == (from_text.step_time_s, len(from_text.ops))
    assert again.to_json() == first.to_json()
    assert module.instruction_count == hloroof.parse(text).instruction_count
    # Another object is read on its own.
    other = _CountingPrints(compiled._compiled)
    hloroof.predict(other)
    assert (compiled.prints, other.prints) == (1, 1)
    _jax_objects.forget(compiled)
    hloroof.predict(compiled)
    assert compiled.prints == 2


@pytest.fixture(scope="module")
def v5e_compiled():
    return hloroof.jax.compile_for(_step, *_abstract_args(), target="tpu_v5e:2x2",
                                   mesh_axes={"data": 4}, in_specs=(P("data"), None))


@needs_libtpu
def test_a_tpu_compiled_object_names_its_device_and_slice(v5e_compiled):
    p = hloroof.predict(v5e_compiled)
    assert (p.device, p.topology) == ("tpu_v5e", "2x2")
    assert ("device tpu_v5e read from the compiled object (4 device(s) of kind 'TPU v5 lite', "
            "chips 2x2)") in p.assumptions
    assert not any("the default device" in a for a in p.assumptions)
    # A device named by the caller wins.
    assert hloroof.predict(v5e_compiled, "tpu_v6e:2x2").device == "tpu_v6e"


@needs_libtpu
def test_memory_and_advise_of_a_tpu_compiled_object(v5e_compiled):
    m = hloroof.memory(v5e_compiled)
    assert m.capacity.capacity_bytes == hloroof.device("tpu_v5e").hbm_capacity_bytes
    # XLA's own figures beside hloroof's: the same on this program.
    ma = v5e_compiled.memory_analysis()
    assert m.xla_memory_analysis == {
        "argument_bytes": ma.argument_size_in_bytes, "output_bytes": ma.output_size_in_bytes,
        "alias_bytes": ma.alias_size_in_bytes, "temp_bytes": ma.temp_size_in_bytes}
    assert (m.temp_bytes, m.argument_bytes) == (ma.temp_size_in_bytes, ma.argument_size_in_bytes)
    assert f"XLA's memory_analysis() of the compiled object: argument " \
           f"{ma.argument_size_in_bytes:,} B, output" in m.notes[-1]
    assert hloroof.memory(v5e_compiled.as_text(), "tpu_v5e").xla_memory_analysis is None
    advice = hloroof.advise(v5e_compiled)
    assert advice["device"] == "tpu_v5e" and advice["step_time_s"] > 0
    assert any("read from the compiled object" in n for n in advice["notes"])


@needs_libtpu
def test_tpu_all_reduces_run_in_place():
    # A bf16 MLP train step on a v5e 2x2 mesh, data x model (x[8192,4096] over data, w1[4096,
    # 16384] and w2[16384,4096] over model, gelu, SGD): libtpu reduces the first gradient's
    # all-reduce in place, temp 234,946,560 B (its buffer-assignment dump), as hloroof now
    # models; 32 MiB more (268,500,992 B) without the rule.
    def loss(w1, w2, x):
        return jnp.mean((jax.nn.gelu(x @ w1) @ w2).astype(jnp.float32) ** 2)

    def step(w1, w2, x):
        g1, g2 = jax.grad(loss, argnums=(0, 1))(w1, w2, x)
        return w1 - 0.1 * g1, w2 - 0.1 * g2

    args = (jax.ShapeDtypeStruct((4096, 16384), jnp.bfloat16),
            jax.ShapeDtypeStruct((16384, 4096), jnp.bfloat16),
            jax.ShapeDtypeStruct((8192, 4096), jnp.bfloat16))
    compiled = hloroof.jax.compile_for(step, *args, target="tpu_v5e:2x2",
                                       mesh_axes={"data": 2, "model": 2},
                                       in_specs=(P(None, "model"), P("model", None),
                                                 P("data", None)))
    m = hloroof.memory(compiled)
    assert compiled.memory_analysis().temp_size_in_bytes == 234_946_560
    assert m.temp_bytes == 234_946_560


@needs_libtpu
def test_compile_for_a_slice_with_two_devices_per_chip():
    compiled = hloroof.jax.compile_for(_step, *_abstract_args(), target="tpu7x:2x2x1")
    p = hloroof.predict(compiled)
    assert (p.device, p.topology) == ("tpu7x", "2x2x1")


@needs_libtpu
def test_compile_for_a_megacore_slice_predicts_its_chips():
    # libtpu 0.0.52 compiles tpu_v4:2x2x1 (4 chips) for 8 devices, a TensorCore each: the
    # prediction is of those 4 chips, each device at half the chip's megacore figures.
    with pytest.raises(ValueError, match=r"tpu_v4:2x2x1 has 8 \(4 chips, 2 devices a chip"):
        hloroof.jax.compile_for(_step, *_abstract_args(), target="tpu_v4:2x2x1",
                                mesh_axes={"x": 4})
    compiled = hloroof.jax.compile_for(_step, *_abstract_args(), target="tpu_v4:2x2x1",
                                       mesh_axes={"x": 8}, in_specs=(P("x"), None))
    p = hloroof.predict(compiled)
    assert (p.device, p.topology) == ("tpu_v4", "2x2x1")
    assert any("runs on 8 devices on tpu_v4:2x2x1's 4 chips" in a for a in p.assumptions)
    assert p.devices == 8
    assert (p.peak_flop_rate_type, p.peak_flop_rate) == ("bf16", 2.75e14 / 2)
    # The slice named by the caller is the same 4 chips.
    named = hloroof.predict(compiled, "tpu_v4:2x2x1")
    assert named.step_time_s == p.step_time_s
    # Each device holds half the chip's 32 GiB.
    assert hloroof.memory(compiled).capacity.capacity_bytes == 16 * 2**30


@needs_libtpu
def test_compile_for_errors_say_what_the_compiler_said():
    with pytest.raises(ValueError, match="libtpu does not compile for v5e:3x3"):
        hloroof.jax.topology_devices("tpu_v5e:3x3")
    with pytest.raises(ValueError, match="no GPU target description for a100"):
        hloroof.jax.topology_devices("a100:8")
    with pytest.raises(ValueError, match="expected DEVICE:TOPOLOGY"):
        hloroof.jax.topology_devices("tpu_v5e")


class _Unprintable:
    """A Compiled whose as_text() fails as jaxlib 0.10.2's does on programs libtpu 0.0.52
    compiled for v5p, v6e and tpu7x; compile_for's dump of the program beside it or not."""

    def __init__(self, compiled, dump):
        self.input_shardings = compiled.input_shardings
        self.output_shardings = compiled.output_shardings
        if dump:
            self._hloroof_hlo_text = compiled._hloroof_hlo_text

    def as_text(self):
        raise RuntimeError("INTERNAL: RET_CHECK failure: async-update instruction should have "
                           "1 operands but sees 3")


@needs_libtpu
def test_a_program_xla_cannot_print_is_read_from_its_dump(v5e_compiled):
    # compile_for keeps XLA's own dump: the same program as as_text() gives.
    assert v5e_compiled._hloroof_hlo_text.startswith("HloModule jit__step")
    direct = hloroof.predict(v5e_compiled)
    dumped = hloroof.predict(_Unprintable(v5e_compiled, dump=True))
    assert dumped.step_time_s == pytest.approx(direct.step_time_s)
    assert any("XLA's dump of it (as_text() failed: INTERNAL" in a for a in dumped.assumptions)
    with pytest.raises(ValueError, match="compile it with hloroof.jax.compile_for"):
        hloroof.predict(_Unprintable(v5e_compiled, dump=False))


class _Noisy(_Unprintable):
    """A Compiled whose as_text() logs to file descriptor 2 as jaxlib's C++ does (a stack of
    30 lines before its RET_CHECK error), then fails or, `prints`, returns the program."""

    def __init__(self, compiled, prints):
        super().__init__(compiled, dump=True)
        self.prints = prints

    def as_text(self):
        os.write(2, b"E0000 hlo_verifier.cc:1] RET_CHECK failure stack frame\n" * 30)
        if self.prints:
            return self._hloroof_hlo_text
        return super().as_text()


@needs_libtpu
def test_the_stack_jaxlib_logs_before_as_text_fails_is_held_back(v5e_compiled, capfd):
    capfd.readouterr()
    p = hloroof.predict(_Noisy(v5e_compiled, prints=False))
    assert any("as_text() failed: INTERNAL" in a for a in p.assumptions)
    assert "RET_CHECK failure stack frame" not in capfd.readouterr().err
    # Where as_text() works, what it logged is written out as it was.
    hloroof.predict(_Noisy(v5e_compiled, prints=True))
    assert capfd.readouterr().err.count("RET_CHECK failure stack frame") == 30


@needs_cuda_plugin
def test_compile_for_an_h100_node_without_a_gpu():
    compiled = hloroof.jax.compile_for(_step, *_abstract_args(), target="h100:8")
    p = hloroof.predict(compiled)
    assert p.device == "h100"
    assert any("8 device(s) of kind 'NVIDIA H100 80GB HBM3'" in a for a in p.assumptions)


@needs_cuda_plugin
@pytest.mark.parametrize("target", ["h200:8", "b200:2x8"])
def test_fp8_products_stay_fp8_on_h200_and_b200_nodes(target):
    # bench/recipe_models.py's fp8 product (one absolute-max scale a tensor) over the batch of
    # a node or two: XLA keeps its operands fp8 (a GEMM fusion of f8 operands here; cuBLASLt's
    # fp8 GEMMs where Triton's are off, as the GPU recipes set, for the CUDA runtime the GPU's
    # description names), and hloroof times it at the GPU's fp8 peak.
    import sys
    sys.path.insert(0, str(SOURCE / "bench"))
    from recipe_models import fp8_matmul
    mm = fp8_matmul()
    x = jax.ShapeDtypeStruct((16 * 1024, 4096), jnp.bfloat16)
    w = jax.ShapeDtypeStruct((4096, 4096), jnp.bfloat16)
    devices = 8 if target == "h200:8" else 16
    name = target.partition(":")[0]
    fp8 = hloroof.jax.compile_for(lambda a, b: mm(a, b), x, w, target=target,
                                  mesh_axes={"data": devices}, in_specs=(P("data"), P()))
    half = re.compile(r"\bf16\[")  # an f16 array (not bf16)
    assert not half.search(fp8.as_text())
    p = hloroof.predict(fp8)
    assert (p.device, p.peak_flop_rate_type) == (name, "fp8")


@needs_libtpu
def test_the_whatif_example_on_one_slice():
    path = SOURCE / "examples" / "python" / "whatif.py"
    spec = importlib.util.spec_from_file_location("whatif", path)
    whatif = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(whatif)
    rows = whatif.main(["--targets", "tpu_v5e:2x2", "--small"])
    assert [r[:2] for r in rows] == [["tpu_v5e:2x2", "FSDP"], ["tpu_v5e:2x2", "FSDP+TP"]]
    assert all(float(r[2]) > 0 and r[6] in ("yes", "no") for r in rows)
    # HFU counts every FLOP run; MFU the model's 6ND alone (attention and the optimizer's
    # update left out): above 0, at most the HFU.
    for r in rows:
        hfu, mfu = (float(cell.rstrip("%")) for cell in r[3:5])
        assert 0 < mfu <= hfu


def test_fp8_products_with_a_fixed_range_take_no_absolute_maximum():
    """bench/recipe_models.py's fp8 product: qwix's 'fixed,-224,224' calibration scales the
    activations and weights by a constant (no reduction over them), gradients still by their
    absolute maximum; the values stay those of the product within fp8's precision."""
    import sys
    sys.path.insert(0, str(SOURCE / "bench"))
    from recipe_models import fp8_matmul
    a = jnp.linspace(-2, 2, 64 * 32, dtype=jnp.float32).reshape(64, 32).astype(jnp.bfloat16)
    w = jnp.linspace(1, -1, 32 * 16, dtype=jnp.float32).reshape(32, 16).astype(jnp.bfloat16)
    for fixed, forward_maxima in ((None, 2), (224, 0)):
        mm = fp8_matmul(fixed)
        jaxpr = str(jax.make_jaxpr(mm)(a, w))
        assert jaxpr.count("reduce_max") == forward_maxima
        # The backward pass takes the gradient's maximum either way (and the forward's again).
        grad = str(jax.make_jaxpr(jax.grad(lambda a, w: mm(a, w).astype(jnp.float32).sum()))(a, w))
        assert grad.count("reduce_max") == forward_maxima + 1
        exact = a.astype(jnp.float32) @ w.astype(jnp.float32)
        # e4m3 keeps 3 mantissa bits: each operand within 2^-4 of its value, the sums of 32
        # products within 2 x 2^-4 of their magnitudes' sum.
        bound = 2 * 2.0 ** -4 * (jnp.abs(a.astype(jnp.float32)) @ jnp.abs(w.astype(jnp.float32)))
        assert (jnp.abs(mm(a, w).astype(jnp.float32) - exact) <= bound + 1e-2).all()


def test_load_balanced_positions_give_each_device_the_same_causal_work():
    import sys
    sys.path.insert(0, str(SOURCE / "bench"))
    from recipe_models import load_balanced_positions
    # 16 positions over 4 devices: 8 chunks of 2, device i holding chunks i and 7 - i.
    order = load_balanced_positions(16, 4).reshape(4, 4)
    assert order.tolist() == [[0, 1, 14, 15], [2, 3, 12, 13], [4, 5, 10, 11], [6, 7, 8, 9]]
    # Position p sees p + 1 keys: 1 + 2 + 15 + 16 = 34 on every device.
    assert ((order + 1).sum(axis=1) == 34).all()


@needs_libtpu
def test_context_parallel_attention_costs_the_whole_causal_grid():
    """bench/recipe_models.py's dense step with the sequence over 2 devices (toy sizes): each
    device's splash kernel has half of q against the whole k, and costs as its share of the
    whole causal grid, not as the first half of the sequence."""
    import sys
    sys.path.insert(0, str(SOURCE / "bench"))
    from recipe_models import dense_step
    toy = dict(layers=2, width=256, ffn=512, heads=2, kv_heads=1, head_dim=128, vocab=1024,
               batch_per_chip=2, seq=2048, chips=4, devices=4, context_parallel=2,
               splash_blocks=512, remat={"decoder_layer_input": "device"})
    step, args, specs, donate = dense_step(toy)
    compiled = hloroof.jax.compile_for(step, *args, target="tpu_v5p:2x2x1",
                                       mesh_axes={"fsdp": 2, "context": 2}, in_specs=specs,
                                       donate_argnums=donate)
    forward = [i for i in hloroof.cost(compiled._hloroof_hlo_text).instructions
               if i.instruction.name.startswith("splash_mha_fwd")]
    assert forward
    # 8 sequences over FSDP 2: 4 a device, 2 heads, 1024 of the 2048 queries against 2048
    # keys. Blocks of 512: the whole causal grid computes 1 + 2 + 3 + 4 = 10 of 4 x 4 blocks;
    # 4 x 2 x 1024 x 2048 x 10/16 = 10,485,760 scores, 4 x 128 FLOPs each = 5,368,709,120.
    # (Read as the first half of the sequence alone, 3 of 8 blocks: 3,221,225,472.)
    for i in forward:
        assert i.cost.flops == 5368709120


@needs_libtpu
def test_a_mixture_of_experts_step_costs_its_pallas_kernels():
    """bench/recipe_models.py's DeepSeek-V2 step, at toy sizes (not a recipe): its megablox
    grouped matmuls and splash attention are Mosaic custom calls, costed from their stated
    estimate and their shapes, never unknown work."""
    import sys
    sys.path.insert(0, str(SOURCE / "bench"))
    from recipe_models import deepseek_step
    toy = dict(layers=2, dense_layers=1, width=256, ffn=512, heads=2, qk_nope_dim=128,
               qk_rope_dim=64, v_dim=128, kv_lora_rank=128, experts=8, experts_per_token=2,
               shared_experts=1, moe_ffn=256, vocab=1024, batch_per_chip=1, seq=512, chips=4,
               devices=4)
    step, args, specs, donate = deepseek_step(toy)
    compiled = hloroof.jax.compile_for(step, *args, target="tpu_v5p:2x2x1",
                                       mesh_axes={"fsdp": 4}, in_specs=specs,
                                       donate_argnums=donate)
    text = compiled._hloroof_hlo_text
    mosaic = set(re.findall(r"%([\w.-]+) = [^\n]*custom_call_target=\"tpu_custom_call\"", text))
    assert any("gmm" in m for m in mosaic) and any("splash" in m for m in mosaic)
    p = hloroof.predict(compiled)
    assert not mosaic & set(p.unknown_ops)
    # The grouped matmuls' FLOPs are counted: per chip 512 tokens x 2 experts each, through
    # three 256 x 256 expert products, forward alone 3 x 2 x 1024 x 256 x 256 = 403 MFLOP.
    assert p.matrix_flops > 3 * 2 * 1024 * 256 * 256

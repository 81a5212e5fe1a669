"""Tests of the hloroof Python module on the bundled examples.

The reference is the library itself through another door: the command-line tool's --json
output (HLOROOF_CLI) and the figures examples/README.md derives by hand.
"""

import collections
import gc
import json
import os
import pathlib
import re
import subprocess

import pytest

import hloroof

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("HLOROOF_CLI")
V5E = SOURCE / "examples" / "tpu_v5e_train_step.hlo"
H100 = SOURCE / "examples" / "h100_gemm_step.hlo"
GRADS = SOURCE / "examples" / "h200_embedding_grads.hlo"
EXAMPLES = [(V5E, "tpu_v5e:2x2"), (H100, "h100")]

BAD_TEXT = ("HloModule bad\n\nENTRY %main {\n  %p = f32[4] parameter(0)\n"
            "  ROOT %r = f32[4] frobnicate(%p)\n}\n")


def run_cli(*args):
    if CLI is None:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=False)


def unwrapped(text):
    """The command's stderr with its wrapped lines (continuations indented) joined."""
    return re.sub(r"\n +", " ", text)


class Compiled:
    """Stands for a JAX Compiled object: all hloroof needs is as_text()."""

    def __init__(self, text):
        self.text = text

    def as_text(self):
        return self.text


@pytest.fixture(scope="module")
def v5e_text():
    return V5E.read_text()


@pytest.fixture(scope="module")
def h100_text():
    return H100.read_text()


# ---- Predictions: the same as the C++ API's.

@pytest.mark.parametrize("path,device", EXAMPLES, ids=["v5e", "h100"])
def test_predict_matches_the_cli_json(path, device):
    result = run_cli("predict", path, "--device", device, "--json")
    assert result.returncode == 0, result.stderr
    expected = json.loads(result.stdout)
    p = hloroof.predict(path.read_text(), device)
    assert p.to_dict() == expected
    assert json.loads(p.to_json()) == expected


def test_a_profile_s_module_is_predicted_on_its_device_as_the_command_does():
    # One rule for every caller (hloroof/analysis.h, choose_device): with no device given, a
    # module read from a profile is predicted on the device its planes name (a TPU v6e here).
    profile = SOURCE.parent / "shared" / "profiles" / "tpu_v6e" / "tpu_inference_2.xplane.pb"
    if not profile.exists():
        pytest.skip(f"{profile}: absent")
    result = run_cli("predict", profile, "--json")
    assert result.returncode == 0, result.stderr
    expected = json.loads(result.stdout)
    got = hloroof.predict(profile).to_dict()
    assert got["device"] == expected["device"] == "tpu_v6e"
    # What the command says on standard error (which module was read, which device the
    # profile chose), Python says first among the assumptions, each naming its own options
    # after a ';' (module_name=, device=); the rest is the same.
    said = got["assumptions"][:len(got["assumptions"]) - len(expected["assumptions"])]
    assert got["assumptions"][len(said):] == expected["assumptions"]
    assert len(said) == 2 and "device tpu_v6e from the profile" in said[1]
    stderr = " ".join(result.stderr.split())
    for note in said:
        assert " ".join(note.rsplit(";", 1)[0].split()) in stderr
    del got["assumptions"], expected["assumptions"]
    assert got == expected


def test_time_ranges_are_the_json_s():
    # Two bf16 embedding gradients on h200 (GRADS; tests/predict/predict_step_test.cc derives
    # them): each 16384 token ids over 32000 rows, at the low end spread evenly (the expected
    # time), at the high end under a Zipf law of exponent 1.1: 16384 / H(32000, 1.1) = 16384 /
    # 7.04053 = 2327.10 updates on the first row, 2326.10 repeats x 6.8 us = 15.8175 ms more.
    # The step runs both, one after the other: its range is twice an op's.
    p = hloroof.predict(GRADS.read_text(), "h200")
    op = p.ops[0]
    r = op.time_range
    assert r.low_s == op.time_s
    assert r.high_s - r.low_s == pytest.approx(2326.10 * 6.8e-6, rel=1e-4)
    assert r.low == "indices spread evenly over the rows"
    assert p.step_time_range.high_s - p.step_time_s == pytest.approx(2 * (r.high_s - r.low_s))
    d = p.to_dict()
    assert d["ops"][0]["time_range"] == op.to_dict()["time_range"] == r.to_dict()
    assert d["step_time_range"] == p.step_time_range.to_dict()
    assert p.to_pandas()["time_range.high_s"][0] == r.high_s
    # No op of the examples has a range: None, JSON's null.
    plain = hloroof.predict(H100.read_text(), "h100")
    assert plain.step_time_range is None and plain.to_dict()["step_time_range"] is None
    assert all(o.time_range is None for o in plain.ops)


@pytest.mark.parametrize("path,device", EXAMPLES, ids=["v5e", "h100"])
def test_attributes_match_to_dict(path, device):
    p = hloroof.predict(path.read_text(), device)
    d = p.to_dict()
    assert p.step_time_s == d["step_time_s"] > 0
    assert p.hfu == d["hfu"]
    assert p.mfu is None and d["mfu"] is None  # no model FLOPs given: None, as JSON's null
    assert p.is_lower_bound == d["lower_bound"]
    assert p.assumptions == d["assumptions"]
    assert p.breakdown.to_dict() == d["breakdown"]
    assert len(p.ops) == len(d["ops"])
    # Every key of the JSON record is a field of the op, with the same value; the JSON names a
    # collective's is_async "async".
    aliases = {"async": "is_async"}
    for op, record in zip(p.ops, d["ops"]):
        mine = op.to_dict()
        for key, value in record.items():
            if isinstance(value, dict):
                for inner, item in value.items():
                    assert mine[key][aliases.get(inner, inner) if key == "collective" else inner] \
                        == item, (op.name, key, inner)
            else:
                assert mine[key] == value, (op.name, key)
        assert op.instruction is None  # predicted from text: the module is not kept


def test_v5e_train_step_figures_of_the_examples_readme(v5e_text):
    p = hloroof.predict(v5e_text, "tpu_v5e:2x2")
    # examples/README.md: 336 U = 11,544,872,091,648 matmul FLOPs; 11,593,180,221,492 in all.
    assert p.matrix_flops == 11544872091648.0
    assert p.flops == 11593180221492.0
    assert (p.device, p.topology) == ("tpu_v5e", "2x2")
    # The breakdown adds up to the step, and so do the ops' total times.
    b = p.breakdown
    assert b.compute_s + b.memory_s + b.collective_exposed_s + b.overhead_s == \
        pytest.approx(p.step_time_s, rel=1e-9)
    assert sum(op.total_time_s for op in p.ops) == pytest.approx(p.step_time_s, rel=1e-9)
    # HFU against the v5e bf16 peak of 1.97e14 FLOP/s.
    assert p.peak_flop_rate == 1.97e14
    assert p.hfu == pytest.approx(p.flops / (p.step_time_s * 1.97e14))
    # MFU from the model's FLOPs over the 4 devices: the matmul FLOPs each device runs, 4 times,
    # give MFU = 4 x 11,544,872,091,648 / (4 x step x peak), below the HFU.
    m = hloroof.predict(v5e_text, "tpu_v5e:2x2", model_flops=4 * 11544872091648.0)
    assert m.devices == 4
    assert m.mfu == pytest.approx(11544872091648.0 / (m.step_time_s * 1.97e14))
    assert m.mfu < m.hfu
    # The compute floor: 11.545e12 / 1.97e14 = 58.6 ms.
    assert p.step_time_s >= 11544872091648.0 / 1.97e14
    gathers = [op for op in p.ops
               if op.collective and op.collective.kind == "all-gather"
               and op.computation != "main.100"]
    assert len(gathers) == 8
    assert all(op.collective.exposed_s == 0 for op in gathers)


def test_predict_step_time_is_the_c_plus_plus_name_of_predict(v5e_text):
    # The call as C++ users write it, from text with the slice inferred from the module.
    p = hloroof.predict_step_time(v5e_text, "tpu_v5e")
    q = hloroof.predict(v5e_text, "tpu_v5e")
    assert (p.device, p.topology) == ("tpu_v5e", "2x2")
    assert p.step_time_s == q.step_time_s and p.roofline_step_time_s == q.roofline_step_time_s
    assert p.step_time_s >= 11544872091648.0 / 1.97e14  # the compute floor, as above


def test_tpu_predictions_say_what_they_rest_on(v5e_text):
    # Every TPU prediction names what is measured, fitted, borrowed or assumed, in Python and
    # in the CLI's JSON alike (docs/prediction-model.md, "Measured models (TPUs)").
    p = hloroof.predict(v5e_text, "tpu_v5e:2x2")
    lines = [a for a in p.assumptions if "borrow the tpu7x microbenchmarks" in a]
    assert len(lines) == 1 and "fitted" in lines[0] and "measured" in lines[0]
    assert any(a.startswith("tpu_v5e assumed, not measured") for a in p.assumptions)
    assert p.step_time_s > p.roofline_step_time_s
    result = run_cli("predict", V5E, "--device", "tpu_v5e:2x2", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["assumptions"] == list(p.assumptions)


def test_h100_all_reduce_of_the_examples_readme(h100_text):
    # The README's arithmetic is the roofline's; the expected time is never below it.
    p = hloroof.predict(h100_text, "h100", roofline_only=True)
    expected = hloroof.predict(h100_text, "h100")
    assert expected.step_time_s >= p.step_time_s == expected.roofline_step_time_s
    assert p.matrix_flops == 5 * 2**40  # five GEMMs of 2*8192*4096*16384
    start = next(op for op in p.ops if op.name == "all-reduce-start")
    # V = 2 x 4096 x 16384 x 4 + 4 B; ring on 8 GPUs at 4.5e11 B/s plus 2 us (h100.json).
    assert start.collective.payload_bytes == 536870916
    assert start.collective.time_s == pytest.approx(2 * 536870916 * 7 / (8 * 4.5e11) + 2e-6)
    assert start.async_.done == "all-reduce-done"
    assert p.topology == "1x8"
    assert any("topology 1x8" in a for a in p.assumptions)


def test_predict_a_module_keeps_its_instructions(h100_text):
    module = hloroof.parse(h100_text)
    from_text = hloroof.predict(h100_text, "h100")
    from_module = hloroof.predict(module, "h100")
    assert from_module.to_dict() == from_text.to_dict()
    del module  # the prediction keeps it alive
    op = from_module.ops[0]
    assert op.instruction is not None and op.instruction.name == op.name
    assert op.instruction.computation.name == op.computation


def test_predict_options_and_device_spec(h100_text):
    spec = hloroof.device("h100")
    by_spec = hloroof.predict(h100_text, spec, topology="1x8")
    assert by_spec.to_dict() == hloroof.predict(h100_text, "h100:1x8").to_dict()
    # XLA's NCCL formula gives the all-reduce another time than the network model.
    nccl = hloroof.predict(h100_text, "h100", collective_formula="xla-gpu-nccl")
    start = next(op for op in nccl.ops if op.name == "all-reduce-start")
    assert start.collective.formula != next(
        op for op in by_spec.ops if op.name == "all-reduce-start").collective.formula
    no_overhead = hloroof.predict(h100_text, "h100", include_overhead=False)
    assert no_overhead.step_time_s < by_spec.step_time_s
    with pytest.raises(TypeError, match="unknown option 'trip_count'"):
        hloroof.predict(h100_text, "h100", trip_count=3)
    with pytest.raises(ValueError, match="unknown formula 'ring'"):
        hloroof.predict(h100_text, "h100", collective_formula="ring")


def test_topology_goes_with_the_device(h100_text):
    # The slice is resolved with the device, not held by PredictOptions: topology= is a keyword
    # of every call that takes a device, the same as a slice named with the device.
    assert "topology" not in hloroof.PredictOptions._fields
    named = hloroof.predict(h100_text, "h100:1x8").to_dict()
    assert hloroof.predict(h100_text, "h100", topology="1x8").to_dict() == named
    both = hloroof.compare(h100_text, ["h100", "b200"], topology="2x4")
    assert [p.topology for p in both] == ["2x4", "2x4"]
    # Both sides on the slice given (the module alone infers 1x8).
    assert hloroof.diff(h100_text, h100_text, "h100", topology="2x4").device == "h100:2x4"
    with pytest.raises(ValueError, match="says topology 1x8 but topology= says 2x4"):
        hloroof.predict(h100_text, "h100:1x8", topology="2x4")
    with pytest.raises(TypeError, match="options: topology, device_coordinates"):
        hloroof.predict(h100_text, "h100", trip_count=3)
    with pytest.raises(TypeError, match="wants topology as a str"):
        hloroof.predict(h100_text, "h100", topology=8)


# ---- Anything with as_text().

def test_duck_typed_compiled_object(h100_text):
    compiled = Compiled(h100_text)
    assert hloroof.predict(compiled, "h100").to_dict() == \
        hloroof.predict(h100_text, "h100").to_dict()
    assert hloroof.parse(compiled).print() == hloroof.parse(h100_text).print()
    assert hloroof.cost(compiled).totals.flops == hloroof.cost(h100_text).totals.flops
    assert hloroof.memory(compiled).peak_bytes == hloroof.memory(h100_text).peak_bytes
    # bytes are text too; a Module is text (its as_text() prints it).
    assert hloroof.parse(h100_text.encode()).instruction_count == \
        hloroof.parse(compiled).instruction_count
    with pytest.raises(TypeError, match="as_text"):
        hloroof.predict(42)
    with pytest.raises(TypeError, match="returned int"):
        hloroof.parse(Compiled(7))
    # What jax.jit(f).lower(x).as_text() prints by default: StableHLO, not HLO.
    lowered = Compiled('module @jit_f attributes {mhlo.num_partitions = 1 : i32} {\n}\n')
    with pytest.raises(ValueError, match=r"StableHLO/MLIR text.*compile\(\)\.as_text\(\)"):
        hloroof.predict(lowered)


# ---- Errors.

def test_parse_error_is_located_like_the_cli(tmp_path):
    path = tmp_path / "bad.hlo"
    path.write_text(BAD_TEXT)
    result = run_cli("parse", path)
    assert result.returncode == 1
    with pytest.raises(hloroof.ParseError) as caught:
        hloroof.parse(BAD_TEXT, file_name=str(path))
    # The same message; the command wraps it to 100 columns, its continuation lines indented.
    # The source line and its caret are the same lines.
    cli = result.stderr.rstrip("\n").split("\n")
    python = str(caught.value).split("\n")
    assert all(len(line) <= 100 for line in cli)
    assert cli[-2:] == python[-2:]
    assert " ".join(" ".join(cli[:-2]).split()) == " ".join(" ".join(python[:-2]).split())
    assert cli[0].startswith(f"{path}:5:20: error: ")
    assert isinstance(caught.value, ValueError)
    assert (caught.value.line, caught.value.column) == (5, 20)
    assert "frobnicate" in caught.value.reason


def test_predict_and_cost_raise_parse_errors():
    for call in (hloroof.predict, hloroof.cost, hloroof.memory, hloroof.parse):
        with pytest.raises(hloroof.ParseError) as caught:
            call(BAD_TEXT)
        assert str(caught.value).startswith("5:20: error: ")
        assert caught.value.line == 5


def test_other_errors_are_value_errors_with_the_cli_message(h100_text):
    result = run_cli("predict", H100, "--device", "tpu_v9")
    assert result.returncode == 1
    with pytest.raises(ValueError) as caught:
        hloroof.predict(h100_text, "tpu_v9")
    assert not isinstance(caught.value, hloroof.ParseError)
    assert unwrapped(result.stderr.rstrip("\n")) == "error: " + str(caught.value)
    with pytest.raises(ValueError, match="tpu_v9"):
        hloroof.device("tpu_v9")
    # The module runs on 8 devices: a 2x2 slice cannot hold it.
    with pytest.raises(ValueError):
        hloroof.predict(h100_text, "tpu_v5e:2x2")


def test_what_the_cli_refuses_python_refuses(h100_text, tmp_path, monkeypatch):
    # A negative trip count gave a 0 s step; the CLI's --trip-count refuses it.
    assert run_cli("predict", H100, "--device", "h100", "--trip-count", "-1").returncode == 2
    with pytest.raises(ValueError, match="default_trip_count wants a non-negative integer, "
                                         "got -1"):
        hloroof.predict(h100_text, "h100", default_trip_count=-1)
    with pytest.raises(ValueError, match="default_trip_count wants a non-negative integer"):
        hloroof.cost(h100_text, default_trip_count=-3)
    with pytest.raises(ValueError, match="max_expanded_iterations wants a non-negative integer, "
                                         "got -1"):
        hloroof.predict(h100_text, "h100", max_expanded_iterations=-1)
    # None is no device and no profile (it raised AttributeError, and opened a file "None").
    with pytest.raises(TypeError, match="device wants a device name .* got NoneType None"):
        hloroof.device(None)
    (tmp_path / "None").write_text("not a profile")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TypeError, match="compare_profile\\(\\) wants profile as a path"):
        hloroof.compare_profile(h100_text, None, "h100")
    # A path object is a path.
    assert hloroof.device(SOURCE / "data" / "hardware" / "h100.json").name == "h100"


# ---- The module.

def test_module_structure_and_round_trip(h100_text):
    m = hloroof.parse(h100_text)
    assert m.name == "jit_train_step"
    assert m.num_partitions == 8 and m.is_scheduled
    assert m.entry.name == "main.42" and m.entry.is_entry
    assert m.computations[-1].name == "main.42"  # callees first
    start = m.entry.instruction("all-reduce-start")
    assert start.opcode == "all-reduce-start"
    assert start.shape == "(f32[4096,16384]{1,0}, f32[16384,4096]{1,0}, f32[])"
    assert [o.name for o in start.operands] == \
        ["get-tuple-element.4", "get-tuple-element.2", "input_reduce_fusion"]
    assert [u.name for u in start.users] == ["all-reduce-done"]
    assert start.metadata.op_name == "jit(train_step)/jit(main)/psum"
    assert start.metadata.source_line == 20
    assert start.op_name == start.metadata.op_name
    assert m.entry.root.op_name == ""  # a tuple without metadata
    assert start.attributes["channel_id"] == "1"
    assert start.called_computations[0].name == "region_0.1"
    assert m.entry.root.name == "tuple.41" and m.entry.root.is_root
    assert m.computation("nope") is None
    text = m.print()
    assert str(m) == text == m.as_text()
    assert hloroof.parse(text).print() == text
    assert sum(len(c) for c in m.computations) == m.instruction_count


def test_instructions_keep_their_module_alive(h100_text):
    instruction = hloroof.parse(h100_text).entry.instruction("all-reduce-done")
    assert instruction.operands[0].operands[2].name == "input_reduce_fusion"


def test_metadata_keeps_its_module_alive(h100_text):
    # The record is decoded on each read; its strings point into the module's text.
    metadata = hloroof.parse(h100_text).entry.instruction("all-reduce-start").metadata
    gc.collect()
    assert metadata.op_name == "jit(train_step)/jit(main)/psum"


# ---- A module that marks no computation ENTRY (a dump cut off before its end).

CUT_TEXT = ("HloModule cut, is_scheduled=true\n\nfused_negate {\n  p = f32[1024] parameter(0)\n"
            "  ROOT n = f32[1024] negate(p)\n}\n")


def test_no_entry_has_no_step_time_until_one_is_named():
    with pytest.raises(ValueError, match="no computation is marked ENTRY") as refused:
        hloroof.predict(CUT_TEXT, "tpu_v5e")
    assert "set_entry" in str(refused.value)
    with pytest.raises(ValueError, match="no computation is marked ENTRY"):
        hloroof.advise(CUT_TEXT, "tpu_v5e")
    m = hloroof.parse(CUT_TEXT)
    assert not m.entry_marked
    # memory and cost read the last computation, and say so first.
    assert "no computation is marked ENTRY" in hloroof.memory(m, "tpu_v5e").notes[0]
    assert "no computation is marked ENTRY" in hloroof.cost(m).notes[0]
    with pytest.raises(ValueError, match="no computation is named 'nope'"):
        m.set_entry("nope")
    m.set_entry("fused_negate")
    assert m.entry_marked and m.entry.name == "fused_negate"
    # f32[1024] read and written: 8 KiB of HBM traffic.
    assert hloroof.predict(m, "tpu_v5e").hbm_bytes == 8192
    assert not any("ENTRY" in n for n in hloroof.cost(m).notes)


# ---- Reading: kinds told apart by content, dump directories.

XLA_TEST_FILES = SOURCE / "tests" / "data" / "xla_test_files"


@pytest.mark.parametrize("name", ["if_conditional.hlo", "while.hlo", "case_conditional.hlo",
                                  "concat_1d.hlo", "scatter_add.hlo",
                                  "custom_call_fragment.hlo"])
def test_xla_test_files_are_hlo_not_mlir(name):
    # FileCheck lines naming MLIR, no HloModule header, no ENTRY: XLA's parser reads them.
    path = XLA_TEST_FILES / name
    for source in (path, str(path), path.read_text(), path.read_bytes()):
        assert isinstance(hloroof.parse(source), hloroof.Module)


def test_mlir_is_refused_with_what_to_give():
    mlir = ("module @jit_f {\n  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {"
            "\n    return %arg0 : tensor<4xf32>\n  }\n}\n")
    for source in (mlir, mlir.encode()):
        with pytest.raises(ValueError, match="StableHLO/MLIR text") as refused:
            hloroof.parse(source)
        assert "compile().as_text()" in str(refused.value)
        assert not isinstance(refused.value, hloroof.ParseError)
    with pytest.raises(ValueError, match="StableHLO/MLIR text"):
        hloroof.predict(mlir, "h100")


def test_a_dump_directory_reads_its_largest_jit_module(tmp_path):
    (tmp_path / "module_0001.jit_small.cpu_after_optimizations.txt").write_text(
        "HloModule jit_small\n\nENTRY %e {\n  ROOT %p = f32[4] parameter(0)\n}\n")
    (tmp_path / "module_0002.jit_large.cpu_after_optimizations.txt").write_text(
        "HloModule jit_large\n\nENTRY %e {\n  %p = f32[4] parameter(0)\n"
        "  ROOT %n = f32[4] negate(%p)\n}\n")
    assert hloroof.parse(tmp_path).name == "jit_large"
    assert hloroof.parse(str(tmp_path)).name == "jit_large"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="after_optimizations.txt"):
        hloroof.parse(tmp_path / "empty")


def test_what_reading_said_is_shown_as_the_command_says_it(tmp_path):
    # Which module of a dump was read: Module.diagnostics, and first in every result, in the
    # words the command prints on standard error ("note: read module jit_large ...").
    (tmp_path / "module_0001.jit_small.cpu_after_optimizations.txt").write_text(
        "HloModule jit_small\n\nENTRY %e {\n  ROOT %p = f32[4] parameter(0)\n}\n")
    (tmp_path / "module_0002.jit_large.cpu_after_optimizations.txt").write_text(
        "HloModule jit_large\n\nENTRY %e {\n  %p = f32[4] parameter(0)\n"
        "  ROOT %n = f32[4] negate(%p)\n}\n")
    module = hloroof.parse(tmp_path)
    assert isinstance(module.diagnostics, hloroof.Diagnostics)
    read = module.diagnostics.notes
    assert len(read) == 1 and read[0].startswith("read module jit_large (")
    assert "of the 2 optimized module(s)" in read[0]
    assert "module_name NAME reads another" in read[0]
    cli = run_cli("cost", tmp_path)
    assert cli.returncode == 0, cli.stderr
    # The same sentence, the option named as each names it; the command wraps long paths.
    said = read[0].replace("module_name NAME", "--module NAME")
    assert "".join(said.split()) in "".join(cli.stderr.split())
    assert hloroof.predict(module, "tpu_v5e").assumptions[0] == read[0]
    assert hloroof.cost(tmp_path).notes[0] == read[0]
    assert hloroof.memory(module, "tpu_v5e").notes[0] == read[0]
    assert hloroof.advise(module, "tpu_v5e").notes[0] == read[0]
    # Text in memory says nothing of where it came from.
    assert hloroof.parse(module.print()).diagnostics.to_dict() == {"notes": [], "warnings": []}
    # HLO before optimization: a warning, marked as `cost --json` marks it.
    before = tmp_path / "module_0003.jit_f.before_optimizations.txt"
    before.write_text("HloModule jit_f\n\nENTRY %e {\n  ROOT %p = f32[4] parameter(0)\n}\n")
    warnings = hloroof.parse(before).diagnostics.warnings
    assert len(warnings) == 1 and "before optimization" in warnings[0]
    cli = run_cli("cost", before, "--json")
    assert cli.returncode == 0, cli.stderr
    assert hloroof.cost(before).notes == json.loads(cli.stdout)["notes"]
    assert hloroof.cost(before).notes[0] == "warning: " + warnings[0]
    assert warnings[0] in hloroof.predict(before, "h100").assumptions


def test_a_cut_file_is_an_error_in_python(tmp_path):
    cut = tmp_path / "cut.hlo"
    cut.write_text(CUT_TEXT + "\nENTRY %main {\n  %x = f32[4] parameter(0)\n")
    with pytest.raises(hloroof.ParseError, match="truncated"):
        hloroof.parse(cut)


# ---- Cost, memory, devices.

def test_cost_matches_the_cli_json(v5e_text):
    result = run_cli("cost", V5E, "--json")
    assert result.returncode == 0, result.stderr
    expected = json.loads(result.stdout)
    c = hloroof.cost(v5e_text)
    assert c.totals.flops == expected["totals"]["flops"] == 11593180221492.0
    assert c.totals.matrix_flops == 11544872091648.0
    assert c.totals.hbm_bytes == expected["totals"]["hbm_bytes"]
    assert len(c.instructions) == len(expected["instructions"])
    for mine, theirs in zip(c.instructions, expected["instructions"]):
        assert (mine.instruction.name, mine.computation.name, mine.role, mine.multiplier) == \
            (theirs["name"], theirs["computation"], theirs["role"], theirs["multiplier"])
        assert mine.cost.flops == theirs["flops"]
    # One writer for both: to_json() is the command's output byte for byte.
    assert c.to_json() == result.stdout
    assert c.to_dict() == expected
    assert c.module_name == expected["module"] == "jit_train_step"
    dense = hloroof.cost(v5e_text, use_padded_sizes=False)
    assert dense.totals.hbm_bytes < c.totals.hbm_bytes  # TPU tiles pad
    # Without fused records: the scheduled instructions' records (and fused collectives'), in
    # the same order, and the same step.
    lean = hloroof.cost(v5e_text, fused_records=False)
    scheduled = [r for r in c.instructions if r.role == "scheduled" or r.collective is not None]
    assert 0 < len(lean.instructions) == len(scheduled) < len(c.instructions)
    assert [r.instruction.name for r in lean.instructions] == \
        [r.instruction.name for r in scheduled]
    assert lean.totals.flops == c.totals.flops


def test_memory_matches_the_cli_json(v5e_text):
    result = run_cli("memory", V5E, "--device", "tpu_v5e", "--json")
    assert result.returncode == 0, result.stderr
    expected = json.loads(result.stdout)
    r = hloroof.memory(v5e_text, "tpu_v5e")
    assert r.peak_bytes == expected["peak_bytes"] > 0
    assert r.peak_at == expected["peak_at"]
    assert r.capacity.device == "tpu_v5e"
    assert r.capacity.fits == expected["fits"]
    assert [b.name for b in r.largest_buffers] == [b["name"] for b in expected["buffers"]]
    assert r.to_json() == result.stdout
    assert r.to_dict() == expected
    assert r.to_dict()["breakdown"]["temporaries"] == r.peak_breakdown.temporaries
    # The fields the JSON has by other names or as lists.
    assert (r.entry, r.entry_marked) == (expected["entry"], expected["entry_marked"])
    assert r.temps_in_live_out == expected["temps_in_live_out"]
    assert r.shared_with_operand == expected["shared_with_operand"]
    kinds = collections.Counter(a["kind"] for a in expected["allocations"])
    assert r.allocation_counts == {k: kinds[k] for k in ("parameter", "output", "temp",
                                                         "constant")}
    assert [(p.computation, p.instruction, p.depth, p.device_bytes) for p in r.live_timeline] \
        == [(p["computation"], p["instruction"], p["depth"], p["device_bytes"])
            for p in expected["live_timeline"]]


SMALL = """HloModule small

ENTRY %main (a: f32[8,16], b: f32[16,4]) -> f32[8,4] {
  %a = f32[8,16]{1,0} parameter(0)
  %b = f32[16,4]{1,0} parameter(1)
  %k = f32[8,16]{1,0} constant({...})
  %c = f32[8,16]{1,0} add(%a, %k)
  ROOT %dot = f32[8,4]{1,0} dot(%c, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def test_memory_counts_allocations_of_each_kind():
    r = hloroof.memory(SMALL, "h100")
    # Two parameters, one output (the root), one constant (%k), and the temp allocation that
    # holds the one temporary, %c.
    assert r.allocation_counts == {"parameter": 2, "output": 1, "temp": 1, "constant": 1}
    assert (r.entry, r.entry_marked) == ("main", True)
    # No loop or call: the timeline is the entry's five instructions, at depth 0.
    assert [(p.computation, p.instruction, p.depth) for p in r.live_timeline] == \
        [("main", n, 0) for n in ("a", "b", "k", "c", "dot")]
    # While %c is made: a (512 B), b (256 B), k (512 B) and c (512 B) live: 8 x 16 x 4 B each
    # but b, 16 x 4 x 4 B.
    assert r.live_timeline[3].device_bytes == 512 + 256 + 512 + 512


HOST_OFFLOAD = SOURCE / "tests" / "data" / "memory" / "host_offload.hlo"


def test_memory_reports_host_temporaries():
    # %h, f32[4,8,128] in host memory: 4 x 8 x 128 x 4 B = 16384 B, updated in place by the
    # asynchronous dynamic-update-slice; no device temporary but the 0 B heap of scalars.
    r = hloroof.memory(HOST_OFFLOAD.read_text(), "tpu_v5e")
    assert r.host_temp_bytes == 16384
    assert r.footprint_bytes == r.argument_bytes + r.output_bytes + r.temp_bytes + \
        r.constant_bytes - r.alias_bytes


def test_memory_without_a_device_matches_the_cli_json(v5e_text):
    # The device is inferred the same way; the note that says how names the option as each
    # interface spells it ("--device" on the command line, "device=" in Python).
    result = run_cli("memory", V5E, "--json")
    assert result.returncode == 0, result.stderr
    expected = json.loads(result.stdout)
    mine = hloroof.memory(v5e_text).to_dict()
    assert [n.replace("device=", "--device") for n in mine.pop("notes")] == \
        [n.replace("device=", "--device") for n in expected.pop("notes")]
    assert mine == expected


def test_devices():
    names = hloroof.devices()
    assert "tpu_v5e" in names and "h100" in names
    assert names == sorted(names)
    v5e = hloroof.device("v5e")
    assert v5e.name == "tpu_v5e" and v5e.kind == "tpu"
    assert v5e.hbm_bandwidth == 8.19e11
    assert v5e.matrix_flops_per_s["bf16"] == 1.97e14
    assert hloroof.device("tpu_v5e:4x4").name == "tpu_v5e"
    assert any(f.path == "hbm.bandwidth" for f in v5e.figures)


# ---- Plain data.

def test_to_pandas(v5e_text):
    pandas = pytest.importorskip("pandas")
    p = hloroof.predict(v5e_text, "tpu_v5e:2x2")
    df = p.to_pandas()
    assert isinstance(df, pandas.DataFrame)
    assert len(df) == len(p.ops)
    assert list(df["name"]) == [op.name for op in p.ops]
    assert df["total_time_s"].sum() == pytest.approx(p.step_time_s, rel=1e-9)
    assert df["total_time_s"].is_monotonic_decreasing
    # Nested records are flattened: one column per collective field.
    gathers = df[df["collective.kind"] == "all-gather"]
    assert len(gathers) > 0 and (gathers["collective.group_size"] == 4).all()
    assert set(df["bound"]) <= {"compute", "memory", "collective", "overhead"}
    costs = hloroof.cost(v5e_text).to_pandas()
    assert len(costs) == len(hloroof.cost(v5e_text).instructions)
    assert costs["cost.flops"].max() > 0


COPY_BEFORE = """HloModule m, is_scheduled=true
ENTRY e {
  p = f32[16777216]{0} parameter(0)
  c = f32[16777216]{0} copy(p)
  ROOT n = f32[16777216]{0} negate(c)
}
"""
COPY_AFTER = """HloModule m, is_scheduled=true
ENTRY e {
  p = f32[16777216]{0} parameter(0)
  ROOT n = f32[16777216]{0} negate(p)
}
"""


def test_diff_matches_the_cli(tmp_path):
    # A pass removes a copy of 64 MiB: the copy is removed (it read and wrote 64 MiB, 134217728
    # B per step), the negate stays, and the step loses exactly the copy's time (its kernels,
    # tens of microseconds, hide the host's launch of the negate's).
    d = hloroof.diff(COPY_BEFORE, COPY_AFTER, "h100")
    assert (d.removed, d.added, d.changed) == (1, 0, 0)
    copy = d.ops[0]
    assert (copy.name, copy.change, copy.before_hbm_bytes) == ("c", "removed", 134217728)
    assert d.after.step_time_s - d.before.step_time_s == pytest.approx(-copy.before_time_s)
    assert str(d).startswith("Diff of two predicted steps on h100")
    trace = tmp_path / "diff.trace.json"
    hloroof.diff(COPY_BEFORE, COPY_AFTER, "h100", trace=str(trace))
    events = json.loads(trace.read_text())["traceEvents"]
    tracks = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert tracks == {"before: compute", "after: compute"}
    assert [e["args"]["change"] for e in events if e.get("name") == "c"] == ["removed"]
    # The same as the command's JSON.
    (tmp_path / "before.hlo").write_text(COPY_BEFORE)
    (tmp_path / "after.hlo").write_text(COPY_AFTER)
    cli = run_cli("diff", tmp_path / "before.hlo", tmp_path / "after.hlo", "--device", "h100",
                  "--json")
    assert cli.returncode == 0, cli.stderr
    assert d.to_dict() == json.loads(cli.stdout)


def test_stubs_list_every_field():
    # _hloroof.pyi is what editors complete from: each bound field must be in it.
    import ast
    stubs = pathlib.Path(hloroof._hloroof.__file__).with_name("_hloroof.pyi")
    classes = {node.name: {item.target.id for item in node.body
                           if isinstance(item, ast.AnnAssign)}
               for node in ast.parse(stubs.read_text()).body
               if isinstance(node, ast.ClassDef)}
    bound = {name: cls for name, cls in vars(hloroof._hloroof).items()
             if isinstance(cls, type) and hasattr(cls, "_fields")}
    assert len(bound) > 20
    for name, cls in bound.items():
        assert name in classes, name
        assert set(cls._fields) <= classes[name], (name, set(cls._fields) - classes[name])


CAPTURE = SOURCE / "tests" / "data" / "h100" / "default" / "gemm"


def test_compare_profile_joins_a_real_capture_as_the_command_does():
    # A 4096^3 bf16 GEMM captured on an H100 (tests/data/h100/README.md): five steps, one op.
    c = hloroof.compare_profile((CAPTURE / "module.hlo").read_text(), CAPTURE, "h100")
    assert c["steps"] == 5
    assert [op["name"] for op in c["ops"]] == ["custom-call.1"]
    # The nvjet kernels ran 175.0 to 176.1 us each (the XSpace's durations).
    assert 175e-6 < c["ops"][0]["measured_s"] < 177.5e-6
    cli = run_cli("profile", CAPTURE, "--device", "h100", "--json")
    assert cli.returncode == 0
    assert json.loads(cli.stdout)["step"] == c["step"]


def test_compare_profile_errors_are_value_errors(tmp_path):
    with pytest.raises(ValueError):
        hloroof.compare_profile(H100.read_text(), tmp_path, "h100")
    with pytest.raises(ValueError, match="never runs"):
        hloroof.compare_profile(H100.read_text(), CAPTURE, "h100")


# ---- Parity with the command.

def test_paths_and_open_files_are_read_as_files(h100_text, tmp_path):
    expected = hloroof.predict(h100_text, "h100").step_time_s
    assert hloroof.predict(str(H100), "h100").step_time_s == expected
    assert hloroof.predict(H100, "h100").step_time_s == expected  # pathlib.Path
    with open(H100) as f:
        assert hloroof.predict(f, "h100").step_time_s == expected
    with open(H100, "rb") as f:
        assert hloroof.cost(f).totals.flops == hloroof.cost(h100_text).totals.flops
    assert hloroof.parse(H100).name == hloroof.parse(h100_text).name
    assert hloroof.memory(H100, "h100").peak_bytes == hloroof.memory(h100_text, "h100").peak_bytes
    # A parse error names the file, as the command's does.
    bad = tmp_path / "bad.hlo"
    bad.write_text(BAD_TEXT)
    with pytest.raises(hloroof.ParseError, match=str(bad).replace(".", "\\.") + ":5:"):
        hloroof.parse(str(bad))
    # A string that can only be a path but names no file is said to be missing, not parsed
    # as HLO text ("1:1: unexpected character '/'"); one that could be text is parsed.
    for missing in (str(tmp_path / "missing.hlo"), "missing.hlo", "runs/step"):
        with pytest.raises(FileNotFoundError, match=f"cannot read '{missing}': no such file"):
            hloroof.parse(missing)
        with pytest.raises(FileNotFoundError):
            hloroof.predict(missing, "h100")
    for text in ("garbage", "HloModule m"):
        with pytest.raises(hloroof.ParseError):
            hloroof.parse(text)


def test_dir_exports_no_typing_names():
    names = dir(hloroof)
    for typing_name in ("Any", "Dict", "List", "Optional", "Union", "Text"):
        assert typing_name not in names
    assert "compare" in names and "Comparison" in names


def test_str_of_a_prediction_is_the_command_report(h100_text):
    p = hloroof.predict(h100_text, "h100")
    result = run_cli("predict", H100, "--device", "h100")
    assert result.returncode == 0
    text = str(p)
    # The command prints the same report, then its findings.
    assert result.stdout.startswith(text)
    assert text.startswith("Predicted step of one device: NVIDIA H100 SXM (h100:1x8)")
    assert all(len(line) <= 100 for line in text.splitlines())


def test_compare_several_devices_as_the_command_does(v5e_text):
    c = hloroof.compare(v5e_text, ["tpu_v5e:2x2", "tpu_v6e:2x2"], top=3)
    assert [p.device for p in c] == ["tpu_v5e", "tpu_v6e"]
    result = run_cli("compare", V5E, "--devices", "tpu_v5e:2x2,tpu_v6e:2x2", "--top", "3")
    assert result.returncode == 0
    assert str(c) == result.stdout
    with pytest.raises(TypeError):
        hloroof.compare(v5e_text, "tpu_v5e")


def test_compare_profile_is_typed():
    c = hloroof.compare_profile(CAPTURE / "module.hlo", CAPTURE, "h100")
    assert isinstance(c, hloroof.ProfileComparison)
    assert c.steps == c["steps"] == 5
    assert c.ops[0].name == "custom-call.1"
    assert c.step.measured_s == c["step"]["measured_s"]
    assert json.loads(json.dumps(c.to_dict()))["steps"] == 5
    cli = run_cli("profile", CAPTURE, "--device", "h100")
    assert cli.returncode == 0
    assert str(c).splitlines()[0] == cli.stdout.splitlines()[0]


def test_memory_without_a_device_checks_the_device_predict_picks(h100_text):
    r = hloroof.memory(h100_text)
    # cuBLAS custom calls: a GPU module, checked against the h100.
    assert r.capacity.device == "h100"
    assert any("compiled for GPU" in n for n in r.notes)


def test_advise_is_a_record_whose_str_is_the_command_report():
    text = (SOURCE / "examples" / "tpu_v5e_train_step.hlo").read_text()
    advice = hloroof.advise(text, "tpu_v5e:2x2")
    assert isinstance(advice, hloroof.Advice)
    assert advice.step_time_s == advice["step_time_s"] > 0
    assert advice.findings and advice.findings[0].time_at_stake_s > 0
    assert isinstance(advice.to_dict()["findings"][0], dict)
    # str(): the report `hloroof advise` prints, led by its first finding's title.
    assert advice.findings[0].title in str(advice)


def test_calibrate_reads_capture_folders_as_the_command_does(tmp_path):
    captures = [SOURCE / "tests" / "data" / "h100" / "default" / name
                for name in ("gemm", "mlp", "attention")]
    fit = hloroof.calibrate(captures, "h100")
    assert isinstance(fit, hloroof.Calibration)
    # One step per capture, measured and predicted by the given device and by the fit.
    assert [s.label for s in fit.steps] == [str(c) for c in captures]
    assert all(s.measured_s > 0 and s.given_s > 0 for s in fit.steps)
    assert fit.ops_used > 0
    assert "matmul_efficiency" in {f.field for f in fit.figures}
    # One GPU: no collective crossed a node, so the network's share is listed, not fitted.
    nic = {f.field: f for f in fit.figures}["nic_efficiency"]
    assert not nic.fitted and nic.why == "no collective across nodes measured"
    # str(): the command's report, a table of the figures, headed by whether the fit is kept.
    assert "per_op_overhead" in str(fit)
    if fit.accepted:
        assert str(fit).startswith("fitted ")
    else:
        assert str(fit).startswith("fit to ") and "NOT KEPT" in str(fit)
    if fit.accepted:
        path = fit.save(tmp_path / "fitted.json")
        assert hloroof.predict((SOURCE / "examples" / "h100_gemm_step.hlo").read_text(),
                               path).step_time_s > 0
    else:
        assert fit.rejected_why and fit.device_json == ""
        with pytest.raises(ValueError, match="not kept"):
            fit.save(tmp_path / "fitted.json")
    # One module for every profile must be given per profile or once; a count that matches
    # neither is refused.
    with pytest.raises(ValueError, match="3 profiles and 2 modules"):
        hloroof.calibrate(captures, "h100", modules=["HloModule a", "HloModule b"])


def test_calibrate_starts_from_the_figures_set():
    captures = [SOURCE / "tests" / "data" / "h100" / "default" / name
                for name in ("gemm", "mlp")]
    given = {f.field: f for f in hloroof.calibrate(captures, "h100").figures}
    # As given, H100's matmul efficiency is its measured GEMM table; set to 50%, the fit
    # starts from 0.5, and the report says what was set.
    assert given["matmul_efficiency"].given_model
    fit = hloroof.calibrate(captures, "h100", settings=["matmul_efficiency=0.5"])
    figures = {f.field: f for f in fit.figures}
    assert figures["matmul_efficiency"].before == 0.5
    assert figures["matmul_efficiency"].given_model == ""
    assert "the fit starts from h100 with figures set: matmul_efficiency=0.5" in fit.notes
    assert "figures set: matmul_efficiency=0.5" in str(fit)
    # A figure the device lacks is refused, as the command's --set is.
    with pytest.raises(ValueError, match="--set hbm.bandwith: h100 has no such figure"):
        hloroof.calibrate(captures, "h100", settings=["hbm.bandwith=1"])
    with pytest.raises(TypeError, match="PATH=VALUE"):
        hloroof.calibrate(captures, "h100", settings=[1.5])


def test_device_settings_are_the_command_s_set(h100_text):
    # h100 at a third of its HBM bandwidth (1e12 of 3.35e12 B/s): HBM-bound ops are slower.
    slow = hloroof.device("h100", ["hbm.bandwidth=1e12"])
    assert slow.hbm_bandwidth == 1e12
    assert hloroof.device("h100").hbm_bandwidth == 3.35e12
    given = hloroof.predict(h100_text, "h100")
    p = hloroof.predict(h100_text, slow)
    assert p.step_time_s > given.step_time_s
    # The command's --set gives the same step.
    cli = run_cli("predict", H100, "--device", "h100", "--set", "hbm.bandwidth=1e12", "--json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["step_time_s"] == pytest.approx(p.step_time_s, rel=1e-12)
    target = hloroof.resolve_device("h100:1x8", settings=["hbm.bandwidth=1e12"])
    assert "device figures set: hbm.bandwidth=1e12" in target.notes
    assert target.spec.hbm_bandwidth == 1e12
    with pytest.raises(ValueError, match="--set hbm.bandwith: h100 has no such figure"):
        hloroof.device("h100", ["hbm.bandwith=1e12"])
    with pytest.raises(TypeError, match="PATH=VALUE"):
        hloroof.device("h100", [1e12])


def _wire_fields(data: bytes):
    """(field number, wire type, value) of a protobuf message's top-level fields; value is
    the bytes of a length-delimited field, else the integer."""
    def varint(pos):
        value, shift = 0, 0
        while True:
            byte = data[pos]
            value |= (byte & 0x7F) << shift
            pos, shift = pos + 1, shift + 7
            if byte < 0x80:
                return value, pos
    pos = 0
    while pos < len(data):
        key, pos = varint(pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = varint(pos)
        elif wire == 1:
            value, pos = int.from_bytes(data[pos:pos + 8], "little"), pos + 8
        elif wire == 5:
            value, pos = int.from_bytes(data[pos:pos + 4], "little"), pos + 4
        else:
            length, pos = varint(pos)
            value, pos = data[pos:pos + length], pos + length
        yield number, wire, value


def _hlo_proto_of_xspace(xspace: bytes) -> bytes:
    """The HloProto an XSpace's /host:metadata plane carries (tsl's xplane.proto: XSpace.planes
    = 1, XPlane.name = 2, XPlane.event_metadata = 4 (a map: value = 2), XEventMetadata.stats =
    5, XStat.bytes_value = 6): the largest bytes stat there."""
    for number, _, plane in _wire_fields(xspace):
        if number != 1:
            continue
        fields = list(_wire_fields(plane))
        if (2, 2, b"/host:metadata") not in fields:
            continue
        found = []
        for n, _, entry in fields:
            if n != 4:
                continue
            for k, _, metadata in _wire_fields(entry):
                if k != 2:
                    continue
                for s, _, stat in _wire_fields(metadata):
                    if s == 5:
                        found += [v for f, w, v in _wire_fields(stat) if f == 6 and w == 2]
        return max(found, key=len)
    raise AssertionError("no /host:metadata plane")


def test_functions_that_take_a_module_take_the_bytes_of_a_proto():
    capture = SOURCE / "tests" / "data" / "h100" / "default" / "gemm"
    xspace_path = next((capture / "profile").rglob("*.xplane.pb"))
    xspace = xspace_path.read_bytes()
    hlo_proto = _hlo_proto_of_xspace(xspace)
    text = (capture / "module.hlo").read_text()
    from_text = hloroof.parse(text)
    # The HloProto's bytes, the XSpace's bytes and the XSpace's path all read the module the
    # capture's module.hlo holds (tests/proto/xspace_equivalence_test.cc checks the same in C++).
    for source in (hlo_proto, bytearray(hlo_proto), xspace, xspace_path):
        module = hloroof.parse(source)
        assert module.name == from_text.name
        assert len(module.computations) == len(from_text.computations)
        assert (hloroof.predict(source, "h100").step_time_s ==
                pytest.approx(hloroof.predict(text, "h100").step_time_s, rel=1e-12))
        assert (hloroof.cost(source).totals.flops == hloroof.cost(text).totals.flops)
        assert (hloroof.memory(source, "h100").peak_bytes ==
                hloroof.memory(text, "h100").peak_bytes)
    # Bytes that are neither a proto nor text: said so, as the command says it.
    with pytest.raises(ValueError, match="binary file but neither an HLO proto"):
        hloroof.parse(b"\x08\x01 not HLO")
    # Text that is not HLO: a parse error.
    with pytest.raises(hloroof.ParseError):
        hloroof.parse(b"not HLO")


def test_predict_advise_and_memory_take_the_command_s_settings(h100_text):
    # h100 at a third of its HBM bandwidth (1e12 of 3.35e12 B/s), as device(name, settings)
    # and the command's --set give it.
    slow = ["hbm.bandwidth=1e12"]
    p = hloroof.predict(h100_text, "h100", settings=slow)
    assert p.step_time_s == hloroof.predict(h100_text, hloroof.device("h100", slow)).step_time_s
    assert p.step_time_s > hloroof.predict(h100_text, "h100").step_time_s
    assert "device figures set: hbm.bandwidth=1e12" in p.assumptions
    cli = run_cli("predict", H100, "--device", "h100", "--set", "hbm.bandwidth=1e12", "--json")
    assert cli.returncode == 0, cli.stderr
    expected = json.loads(cli.stdout)
    assert expected["step_time_s"] == pytest.approx(p.step_time_s, rel=1e-12)
    assert p.assumptions == expected["assumptions"]
    # Without a device: the one the module's platform gives (GPU: h100), its figures set.
    assert hloroof.predict(h100_text, settings=slow).step_time_s == p.step_time_s
    assert hloroof.advise(h100_text, "h100", settings=slow)["step_time_s"] == p.step_time_s
    # The memory check against 1 GB of HBM, as the command's --set hbm.capacity=1e9.
    r = hloroof.memory(h100_text, "h100", settings=["hbm.capacity=1e9"])
    assert r.capacity.capacity_bytes == 1e9
    cli = run_cli("memory", H100, "--device", "h100", "--set", "hbm.capacity=1e9", "--json")
    assert cli.returncode == 0, cli.stderr
    expected = json.loads(cli.stdout)
    assert (r.capacity.fits, r.capacity.checked_bytes) == (expected["fits"],
                                                           expected["checked_bytes"])
    assert "device figures set: hbm.capacity=1e9" in r.notes
    # A spec has its figures already; a figure the device lacks is refused.
    with pytest.raises(TypeError, match=r"hloroof.device\(name, settings\)"):
        hloroof.predict(h100_text, hloroof.device("h100"), settings=slow)
    with pytest.raises(ValueError, match="--set hbm.bandwith: h100 has no such figure"):
        hloroof.memory(h100_text, "h100", settings=["hbm.bandwith=1e12"])
    with pytest.raises(TypeError, match="PATH=VALUE"):
        hloroof.advise(h100_text, "h100", settings=[1e12])


def test_files_are_read_and_written_as_the_commands_do(tmp_path):
    # /dev/zero and a FIFO are refused (they were read until MemoryError, or forever).
    with pytest.raises(ValueError, match="character device"):
        hloroof.parse(pathlib.Path("/dev/zero"))
    fifo = tmp_path / "module.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="named pipe"):
        hloroof.parse(fifo)
    # diff's trace never replaces a module it read.
    before = tmp_path / "before.hlo"
    before.write_text(COPY_BEFORE)
    with pytest.raises(ValueError, match="it is an input of this command"):
        hloroof.diff(before, COPY_AFTER, "h100", trace=before)
    assert before.read_text() == COPY_BEFORE
    # A fitted device is never saved over a profile it was fitted from.
    capture = SOURCE / "tests" / "data" / "h100" / "default" / "gemm"
    profile = tmp_path / "gemm.xplane.pb"
    profile.write_bytes(next(capture.glob("profile/plugins/profile/*/*.xplane.pb")).read_bytes())
    fit = hloroof.calibrate([str(profile)], "h100", modules=[capture / "module.hlo"])
    fit["accepted"], fit["device_json"] = True, "{}"  # whatever the fit, its save is checked
    kept = profile.read_bytes()
    with pytest.raises(ValueError, match="it is an input of this command"):
        fit.save(profile)
    assert profile.read_bytes() == kept


MI300_GEMM = SOURCE.parent / "shared" / "profiles" / "mi300" / "jax08_gemm.xplane.pb"


@pytest.mark.skipif(not MI300_GEMM.exists(), reason="../shared/profiles is absent")
def test_compare_profile_chooses_as_the_command_does():
    # The profile alone, its device from its plane (mi300x, not the h100 default), and with the
    # module given, the program of that module among the six named jit_dot.
    alone = hloroof.compare_profile(None, MI300_GEMM, module_name="jit_dot(34)")
    assert alone.device.startswith("mi300x")
    cli = run_cli("profile", MI300_GEMM, "--module", "jit_dot(34)", "--json")
    assert cli.returncode == 0, cli.stderr
    assert alone.step.measured_s == json.loads(cli.stdout)["step"]["measured_s"]
    read = hloroof._hloroof._read_profile(str(MI300_GEMM))
    proto, name, _ = hloroof._hloroof._profile_module(read, "jit_dot(34)")
    assert name == "jit_dot(34)"
    given = hloroof.compare_profile(proto, MI300_GEMM)
    assert given.step.measured_s == alone.step.measured_s
    assert any("joined jit_dot(34)" in n for n in given.notes)


@pytest.mark.skipif(not MI300_GEMM.exists(), reason="../shared/profiles is absent")
def test_profile_modules_lists_what_the_command_lists():
    # The same names, times and order as `hloroof profile --modules --json`: jax08_gemm's 16
    # programs, the six named jit_dot first; each name is one compare_profile takes.
    listed = hloroof.profile_modules(MI300_GEMM)
    cli = run_cli("profile", MI300_GEMM, "--modules", "--json")
    assert cli.returncode == 0, cli.stderr
    assert listed == json.loads(cli.stdout)["modules"]
    assert len(listed) == 16 and listed[0]["name"] == "jit_dot(21)"
    first = hloroof.compare_profile(None, MI300_GEMM, module_name=listed[0]["name"])
    assert first.step.measured_s > 0
    with pytest.raises(ValueError):
        hloroof.profile_modules(SOURCE / "examples" / "tpu_v5e_train_step.hlo")


def test_the_package_lists_only_its_own_names():
    assert "annotations" not in dir(hloroof)
    assert {"predict", "parse", "compare_profile"} <= set(dir(hloroof))


def test_memory_and_cost_print_the_command_s_report():
    # str() of a MemoryReport and a ModuleCost is the text `hloroof memory` and `hloroof cost`
    # print for the same module (and device), byte for byte.
    for path, device in EXAMPLES:
        memory = run_cli("memory", path, "--device", device)
        assert memory.returncode == 0, memory.stderr
        assert str(hloroof.memory(path, device)) == memory.stdout
        cost = run_cli("cost", path)
        assert cost.returncode == 0, cost.stderr
        assert str(hloroof.cost(path)) == cost.stdout


def test_calibrate_infers_the_device_as_the_command_does():
    # The H100 capture names its device (its GPU plane, its meta.json): no device needed.
    capture = SOURCE / "tests" / "data" / "h100" / "default" / "gemm"
    fit = hloroof.calibrate([capture])
    assert fit.device == "h100"
    assert any("device h100 from the profiles" in n for n in fit.notes)
    # The XSpace alone carries its module, as `hloroof profile` reads it.
    xspace = next((capture / "profile").rglob("*.xplane.pb"))
    carried = hloroof.calibrate([xspace])
    assert any(n.startswith("read module jit_") for n in carried.notes)
    assert [s.measured_s for s in carried.steps] == [s.measured_s for s in fit.steps]

"""The predicted step as an XSpace, read by XProf's own converters (the xprof package of
python/requirements-test.txt): each tool produces its output, and the op profile's and HLO op
stats' times are the prediction's per-op times.

Skipped where xprof is not installed (outside tools/test.sh's environment).
"""

import json
import os
import pathlib

import pytest

import hloroof

raw_to_tool_data = pytest.importorskip("xprof.convert.raw_to_tool_data")

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
V5E = SOURCE / "examples" / "tpu_v5e_train_step.hlo"
H100 = SOURCE / "examples" / "h100_gemm_step.hlo"

# A loop of 6 iterations around one of 5: with 2 laid out one by one, the rest of each is the
# last one stretched. Names are unique in the module, as XLA requires.
NESTED = """HloModule nested, is_scheduled=true, entry_computation_layout={(f32[4096]{0})->f32[4096]{0}}
icond {
  s.0 = (s32[], f32[4096]) parameter(0)
  i.0 = s32[] get-tuple-element(s.0), index=0
  n.0 = s32[] constant(5)
  ROOT lt = pred[] compare(i.0, n.0), direction=LT
}
ibody {
  s.1 = (s32[], f32[4096]) parameter(0)
  i.1 = s32[] get-tuple-element(s.1), index=0
  x.1 = f32[4096] get-tuple-element(s.1), index=1
  one.1 = s32[] constant(1)
  i1 = s32[] add(i.1, one.1)
  x1 = f32[4096] multiply(x.1, x.1)
  ROOT r.1 = (s32[], f32[4096]) tuple(i1, x1)
}
cond {
  s.2 = (s32[], f32[4096]) parameter(0)
  i.2 = s32[] get-tuple-element(s.2), index=0
  n.2 = s32[] constant(6)
  ROOT lt2 = pred[] compare(i.2, n.2), direction=LT
}
body {
  s.3 = (s32[], f32[4096]) parameter(0)
  i.3 = s32[] get-tuple-element(s.3), index=0
  x.3 = f32[4096] get-tuple-element(s.3), index=1
  one.3 = s32[] constant(1)
  i2 = s32[] add(i.3, one.3)
  x2 = f32[4096] add(x.3, x.3)
  z = s32[] constant(0)
  t = (s32[], f32[4096]) tuple(z, x2)
  w2 = (s32[], f32[4096]) while(t), condition=icond, body=ibody, backend_config={"known_trip_count":{"n":"5"}}
  x3 = f32[4096] get-tuple-element(w2), index=1
  ROOT r.3 = (s32[], f32[4096]) tuple(i2, x3)
}
ENTRY e {
  x = f32[4096] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[4096]) tuple(zero, x)
  w = (s32[], f32[4096]) while(s), condition=cond, body=body, backend_config={"known_trip_count":{"n":"6"}}
  ROOT y = f32[4096] get-tuple-element(w), index=1
}
"""


def tool(path, name, **params):
    """XProf's converter `name` on the file; its JSON, or None when it produced nothing."""
    params.setdefault("use_saved_result", False)
    data, _ = raw_to_tool_data.xspace_to_tool_data([str(path)], name, params)
    if data is None:
        return None
    return json.loads(data) if name != "trace_viewer" else json.loads(data)


def hlo_stats_rows(path):
    table = tool(path, "hlo_stats")
    ids = [c["id"] for c in table["cols"]]
    return {row["hlo_op_name"]: row
            for row in (dict(zip(ids, (c.get("v") for c in r["c"]))) for r in table["rows"])}


def op_profile_leaves(node, out):
    """Op name -> raw time (ps) of the op profile's ops under their category: the first node
    with XLA's details on each path (a fusion's own, not those of the instructions fused in it,
    which XProf lists below it once XLA has read the module)."""
    if "xla" in node:
        out[node["name"]] = node["metrics"].get("rawTime", 0)
        return out
    for child in node.get("children", []):
        op_profile_leaves(child, out)
    return out


@pytest.fixture(params=[(V5E, "tpu_v5e:2x2", 1), (pathlib.Path("nested"), "tpu_v5e", 3),
                        (H100, "h100", 1), (pathlib.Path("nested"), "h100", 2)],
                ids=["v5e_train_step", "v5e_nested_loops_3_steps", "h100_gemm_step",
                     "h100_nested_loops_2_steps"])
def case(request, tmp_path):
    source, device, steps = request.param
    text = NESTED if source.name == "nested" else source.read_text()
    prediction = hloroof.predict(text, device, max_expanded_iterations=2)
    written = prediction.write_xspace(tmp_path, steps=steps)
    # XProf names the module NAME(PROGRAM_ID).
    module_name = f"{hloroof.parse(text).name}({written['program_id']})"
    return prediction, pathlib.Path(written["path"]), steps, module_name


def test_the_file_lies_where_xprof_looks(tmp_path):
    prediction = hloroof.predict(V5E.read_text(), "tpu_v5e:2x2")
    written = prediction.write_xspace(tmp_path)
    path = pathlib.Path(written["path"])
    assert path == tmp_path / "plugins" / "profile" / "predicted_tpu_v5e" / \
        "hloroof-predicted.xplane.pb"
    assert written["events"] > len(prediction.ops) // 2
    assert not any("buffer assignment" in gap for gap in written["unfilled"])
    tools = raw_to_tool_data.xspace_to_tool_names([str(path)])
    for name in ("overview_page", "op_profile", "hlo_stats", "roofline_model"):
        assert name in tools


def test_xprof_tools_produce_their_output(case):
    prediction, path, steps, module_name = case
    gpu = prediction.device == "h100"
    overview = tool(path, "overview_page")
    environment = next(t["p"] for t in overview if "device_type" in t.get("p", {}))
    # XProf names a GPU by its architecture (compute capability 9.0: Hopper), a TPU by the
    # plane's device type.
    assert environment["device_type"] == ("Nvidia GPU (Hopper)" if gpu else
                                          "Google TPU v5e (predicted by hloroof, not measured)")
    trace = tool(path, "trace_viewer")
    names = {e.get("name") for e in trace["traceEvents"]}
    assert {op.name for op in prediction.ops if op.total_time_s > 0} <= names
    assert tool(path, "op_profile")["deviceType"] == ("GPU" if gpu else "TPU")
    assert hlo_stats_rows(path)
    # The roofline draws the device's roofs: the bf16 peak in GFLOP/s (tpu_v5e 1.97e14 FLOP/s,
    # h100 9.89e14) and the HBM bandwidth in GiB/s (8.19e11 and 3.35e12 B/s).
    roofs = tool(path, "roofline_model")[0]["p"]
    peak, hbm = (9.89e14, 3.35e12) if gpu else (1.97e14, 8.19e11)
    assert float(roofs["peak_flop_rate"]) == pytest.approx(peak / 1e9, rel=1e-6)
    assert float(roofs["peak_hbm_bw"]) == pytest.approx(hbm / 2**30, rel=1e-5)


@pytest.mark.parametrize("source, device", [
    (H100, "h100"), (pathlib.Path("nested"), "h100"), (pathlib.Path("nested"), "tpu_v5e"),
    # The TPU example's matrix products are convolutions without spatial dimensions, whose
    # text has no window: XLA's proto reader requires one (RET_CHECK proto.has_window()).
    (V5E, "tpu_v5e:2x2")])
def test_xla_inside_xprof_reads_the_hlo_proto(source, device, tmp_path):
    text = NESTED if source.name == "nested" else source.read_text()
    prediction = hloroof.predict(text, device)
    written = prediction.write_xspace(tmp_path)
    path = pathlib.Path(written["path"])
    module_name = f"{hloroof.parse(text).name}({written['program_id']})"
    # The graph viewer prints the module XLA built from the file's HloProto; the memory viewer
    # finds it with its buffer assignment. XProf extracts the HloProtos into the run folder
    # when it lists a run's tools, as its server does first.
    assert "graph_viewer" in raw_to_tool_data.xspace_to_tool_names([str(path)])
    printed = raw_to_tool_data.xspace_to_tool_data(
        [str(path)], "graph_viewer",
        {"use_saved_result": False,
         "graph_viewer_options": {"node_name": prediction.ops[0].name, "module_name": module_name,
                                  "graph_width": 3, "type": "short_txt"}})[0].decode()
    assert printed.startswith(f"HloModule {hloroof.parse(text).name}")
    assert prediction.ops[0].name in printed
    memory = tool(path, "memory_viewer", module_name=module_name)
    assert memory["moduleName"] == hloroof.parse(text).name
    # The TPU example's heap peak, as XProf simulates it with the module XLA read, is 512 B
    # below ours (3568.3257 MiB against 3568.3262); every allocation figure is equal.
    check_memory_viewer(memory, hloroof.memory(text, device, top_buffers=0),
                        heap_slack_bytes=512 if source == V5E else 0)


# A loop whose body makes temporaries of its own (b2, n2: f32[4,4096]) and writes one over
# the other's bytes (negate of a dying broadcast).
LOOP_TEMPS = """HloModule loop_temps, is_scheduled=true, \
entry_computation_layout={(f32[4096]{0})->f32[4096]{0}}
cond {
  s.2 = (s32[], f32[4096]) parameter(0)
  i.2 = s32[] get-tuple-element(s.2), index=0
  n.2 = s32[] constant(6)
  ROOT lt2 = pred[] compare(i.2, n.2), direction=LT
}
body {
  s.3 = (s32[], f32[4096]) parameter(0)
  i.3 = s32[] get-tuple-element(s.3), index=0
  x.3 = f32[4096] get-tuple-element(s.3), index=1
  one.3 = s32[] constant(1)
  i2 = s32[] add(i.3, one.3)
  x2 = f32[4096] add(x.3, x.3)
  b2 = f32[4,4096] broadcast(x2), dimensions={1}
  n2 = f32[4,4096] negate(b2)
  sl2 = f32[1,4096] slice(n2), slice={[0:1], [0:4096]}
  x4 = f32[4096] reshape(sl2)
  ROOT r.3 = (s32[], f32[4096]) tuple(i2, x4)
}
ENTRY e {
  x = f32[4096] parameter(0)
  zero = s32[] constant(0)
  s = (s32[], f32[4096]) tuple(zero, x)
  w = (s32[], f32[4096]) while(s), condition=cond, body=body, \
backend_config={"known_trip_count":{"n":"6"}}
  y = f32[4096] get-tuple-element(w), index=1
  ROOT o = f32[4096] multiply(y, y)
}
"""


@pytest.mark.parametrize("device", ["h100", "tpu_v5e"])
def test_memory_viewer_shows_the_loop_body_heap(device, tmp_path):
    prediction = hloroof.predict(LOOP_TEMPS, device)
    written = prediction.write_xspace(tmp_path)
    path = pathlib.Path(written["path"])
    raw_to_tool_data.xspace_to_tool_names([str(path)])
    memory = tool(path, "memory_viewer", module_name=f"loop_temps({written['program_id']})")
    report = hloroof.memory(LOOP_TEMPS, device, top_buffers=0)
    # The body's temporaries are in the temp allocation's trace, at the body's instructions.
    temps = [a for a in report.allocations if a.kind == "temp"]
    assert len(temps) == 1
    held = {b.instruction for b in report.largest_buffers if b.allocation == temps[0].index}
    assert {"b2", "n2"} <= held
    assert {"b2", "n2"} <= set(memory["hloInstructionNames"])
    check_memory_viewer(memory, report)


def heap_peak(report, allocation):
    """The most bytes of `allocation`'s buffers live at one program position, from the
    report's buffers: a result written over its dying operand's bytes (shares_with) adds
    nothing where that operand still lives."""
    held = {b.id: b for b in report.largest_buffers if b.allocation == allocation}

    def live(b, t):
        return b.program_from <= t <= max(b.program_from, b.program_to)

    peak = 0
    for t in {b.program_from for b in held.values()}:
        peak = max(peak, sum(b.padded_bytes for b in held.values() if live(b, t) and not (
            b.shares_with in held and live(held[b.shares_with], t))))
    return peak


def check_memory_viewer(memory, report, heap_slack_bytes=0):
    """XProf's memory viewer (device memory, color 0) shows our allocations and heap (its peak
    within `heap_slack_bytes`)."""
    mib = 2.0 ** 20
    device = [a for a in report.allocations if a.memory_space == 0]
    whole_step = [a for a in device if a.kind != "temp"]  # XProf: "indefinite" lifetimes
    temps = [a for a in device if a.kind == "temp"]
    assert len(temps) <= 1 and report.buffer_count == len(report.largest_buffers)

    def close(key, expected_bytes, slack_bytes=0):
        # proto3 JSON leaves zeros out.
        assert memory.get(key, 0) == pytest.approx(expected_bytes / mib,
                                                   abs=1e-9 + slack_bytes / mib), key

    close("totalBufferAllocationMib", sum(a.bytes for a in device))
    close("indefiniteBufferAllocationMib", sum(a.bytes for a in whole_step))
    close("entryComputationParametersMib", sum(a.bytes for a in device if a.kind == "parameter"))
    close("maybeLiveOutMib", sum(a.bytes for a in device if a.maybe_live_out))
    heap = heap_peak(report, temps[0].index) if temps else 0
    close("peakHeapMib", sum(a.bytes for a in whole_step) + heap, heap_slack_bytes)
    assert heap <= report.temp_bytes
    # One point before each ALLOC, SHARE_WITH or FREE, and one at the end.
    in_temp = [b for b in report.largest_buffers if temps and b.allocation == temps[0].index]
    if in_temp:
        assert len(memory["heapSizes"]) == 2 * len(in_temp) + 1
    # The whole-step allocations are listed, each with its buffers.
    assert len(memory.get("indefiniteLifetimes", [])) == len(whole_step)


def test_hlo_stats_and_op_profile_times_are_the_predicted_ones(case):
    prediction, path, steps, _ = case
    rows = hlo_stats_rows(path)
    leaves = op_profile_leaves(tool(path, "op_profile")["byProgramExcludeIdle"], {})
    checked = 0
    for op in prediction.ops:
        expected_us = op.total_time_s * 1e6 * steps
        # Rounding: each event's start and end to a picosecond.
        slack_us = 2e-6 * op.multiplier * steps
        if op.total_time_s <= 0:
            assert op.name not in rows
            continue
        assert rows[op.name]["total_self_time"] == pytest.approx(expected_us, abs=slack_us), \
            op.name
        assert leaves[op.name] * 1e-6 == pytest.approx(expected_us, abs=slack_us), op.name
        checked += 1
    assert checked >= 4  # the nested module on a GPU: x1, i1, x2, i2 (no loop condition runs)
    # Every self time XProf counts is some op's: the loops add nothing of their own.
    total_us = sum(r["total_self_time"] for r in rows.values())
    assert total_us == pytest.approx(prediction.step_time_s * 1e6 * steps, rel=1e-6)


def test_loop_ops_run_their_trip_count_in_the_op_stats(tmp_path):
    prediction = hloroof.predict(NESTED, "tpu_v5e", max_expanded_iterations=2)
    runs = {op.name: op.multiplier for op in prediction.ops}
    # x1 runs 6 x 5 = 30 times; with 2 iterations of each loop laid out one by one, XProf
    # counts the events it sees: the stretched rest is one event per op.
    assert runs["x1"] == 30
    path = pathlib.Path(prediction.write_xspace(tmp_path)["path"])
    rows = hlo_stats_rows(path)
    x1 = next(op for op in prediction.ops if op.name == "x1")
    assert rows["x1"]["total_self_time"] == pytest.approx(x1.total_time_s * 1e6, abs=1e-4)




CAPTURE = SOURCE / "tests" / "data" / "h100" / "default" / "gemm"


def test_profile_writes_the_measured_and_the_predicted_run_side_by_side(tmp_path):
    """`hloroof profile CAPTURE --xspace LOG_DIR`: XProf lists two runs of one log directory,
    and its HLO op stats of each name the same ops (the measured kernels' hlo_op, the
    prediction's ops)."""
    cli = os.environ.get("HLOROOF_CLI")
    if not cli:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    import subprocess
    done = subprocess.run([cli, "profile", str(CAPTURE), "--device", "h100", "--xspace",
                           str(tmp_path)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    runs = sorted(p.name for p in (tmp_path / "plugins" / "profile").iterdir())
    assert len(runs) == 2 and runs[0].startswith("measured_") and runs[1] == "predicted_h100"
    measured = next((tmp_path / "plugins" / "profile" / runs[0]).glob("*.xplane.pb"))
    predicted = tmp_path / "plugins" / "profile" / runs[1] / "hloroof-predicted.xplane.pb"
    measured_ops = set(hlo_stats_rows(measured))
    predicted_ops = set(hlo_stats_rows(predicted))
    # The GEMMs of the capture (custom-calls to cuBLAS) are on both sides.
    shared = measured_ops & predicted_ops
    assert any(name.startswith("custom-call") for name in shared), (measured_ops, predicted_ops)
    overview = tool(measured, "overview_page")
    assert any("device_type" in t.get("p", {}) for t in overview)

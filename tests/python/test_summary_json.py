"""The JSON of the describing commands (devices, parse, shape) from Python: one writer
(lib/report/summary_json.cc) for both, so Python's strings are the command's output byte for
byte."""

import json
import os
import pathlib
import subprocess

import pytest

import hloroof

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("HLOROOF_CLI")
V5E = SOURCE / "examples" / "tpu_v5e_train_step.hlo"


def run_cli(*args):
    if CLI is None:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    return subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, check=False)


def test_device_summaries_match_devices_json():
    result = run_cli("devices", "--json")
    assert result.returncode == 0, result.stderr
    specs = [hloroof.device(name) for name in hloroof.devices()]
    text = hloroof.device_summaries_to_json(specs)
    assert text == result.stdout
    rows = json.loads(text)
    assert [r["name"] for r in rows] == hloroof.devices()
    v5e = rows[hloroof.devices().index("tpu_v5e")]
    assert v5e["bf16_peak_flop_per_s"] == hloroof.device("tpu_v5e").matrix_flops_per_s["bf16"]
    assert v5e["interconnect"]["type"] == "ici_torus"


@pytest.mark.parametrize("name", ["tpu_v5e", "h100"])
def test_device_spec_to_json_matches_devices_name_json(name):
    result = run_cli("devices", name, "--json")
    assert result.returncode == 0, result.stderr
    spec = hloroof.device(name)
    assert spec.to_json() == result.stdout
    # The spec reads back as the same device.
    assert json.loads(spec.to_json())["name"] == name


def test_parse_summary_matches_parse_json():
    result = run_cli("parse", V5E, "--json")
    assert result.returncode == 0, result.stderr
    module = hloroof.parse(V5E.read_text())
    expected = json.loads(result.stdout)
    # The command's warnings are its own (file names, entry); given the same, the same bytes.
    text = hloroof.parse_summary_to_json(str(V5E), module, expected["warnings"])
    assert text == result.stdout
    assert expected["instructions"] == sum(len(c.instructions) for c in module.computations)


@pytest.mark.parametrize("shape", ["f32[8,128]{1,0}", "bf16[3,5]{1,0:T(8,128)(2,1)}",
                                   "(f32[4]{0}, s8[1024]{0:S(1)})"])
def test_shape_to_json_matches_shape_json(shape):
    result = run_cli("shape", shape, "--json")
    assert result.returncode == 0, result.stderr
    text = hloroof.shape_to_json(shape)
    assert text == result.stdout
    doc = json.loads(text)
    if shape.startswith("f32[8,128]"):
        # 8 x 128 elements x 4 bytes = 4096 bytes, no padding.
        assert (doc["elements"], doc["logical_bytes"], doc["padded_bytes"]) == (1024, 4096, 4096)


def test_shape_to_json_raises_on_a_bad_shape():
    with pytest.raises(ValueError):
        hloroof.shape_to_json("f32[")

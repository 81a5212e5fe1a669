"""One device rule for the library, the command and Python: the shared table
(tests/data/device_targets/targets.json) through Python, and Python's answers beside the
command's."""

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
TABLE = json.loads((SOURCE / "tests" / "data" / "device_targets" / "targets.json").read_text())
TEXT = "\n".join(TABLE["module"]) + "\n"
TARGETS = TABLE["targets"]


def run_cli(*args, stdin=""):
    if CLI is None:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    return subprocess.run([CLI, *map(str, args)], input=stdin, capture_output=True, text=True,
                          check=False)


def unwrapped(text):
    """The command's stderr with its wrapped lines (continuations indented) joined."""
    return re.sub(r"\n +", " ", text)


@pytest.mark.parametrize("row", TARGETS, ids=[t["device"] or "(none)" for t in TARGETS])
def test_predict_takes_every_device_of_the_table(row):
    # Without a device, Python's default is the command's: the module's platform decides.
    device = row["device"] or None
    if "error" in row:
        with pytest.raises(ValueError) as error:
            hloroof.predict(TEXT, device)
        assert row["error"] in str(error.value)
        return
    p = hloroof.predict(TEXT, device)
    assert (p.device, p.topology) == (row["name"], row["topology"])


@pytest.mark.parametrize("row", TARGETS, ids=[t["device"] or "(none)" for t in TARGETS])
def test_python_and_the_command_give_the_same_answer(row):
    args = ["predict", "-", "--json"] + (["--device", row["device"]] if row["device"] else [])
    cli = run_cli(*args, stdin=TEXT)
    try:
        p = hloroof.predict(TEXT, row["device"] or None)
    except ValueError as error:
        assert cli.returncode == 1
        assert cli.stderr.startswith("error: ")
        # The same message, but for how each names the device option.
        said = unwrapped(cli.stderr)[len("error: "):].strip()
        assert said.replace("--device", "device") == str(error).replace("device=", "device")
        return
    assert cli.returncode == 0, cli.stderr
    out = json.loads(cli.stdout)
    assert (out["device"], out["topology"]) == (p.device, p.topology)
    # Each names its device option its own way when it says how the device was chosen.
    assert [a.replace("--device", "device=") for a in out["assumptions"]] == p.assumptions
    assert out["warnings"] == p.warnings


def test_resolve_device_says_what_it_chose():
    v5p = hloroof.resolve_device("v5p-8")
    assert (v5p.spec.name, v5p.topology, v5p.source) == ("tpu_v5p", "1x2x2", "named")
    # 8 TensorCores, two per chip: 4 chips (cloud.google.com/tpu/docs/v5p).
    assert any("accelerator type of 4 chips" in n for n in v5p.notes)
    default = hloroof.resolve_device(None, TEXT)
    assert (default.spec.name, default.topology, default.source) == ("tpu_v5e", "", "platform")
    assert any("no device= given: the module was compiled for TPU" in n for n in default.notes)
    # 4x4 holds 16 chips; the module runs on 4: 12 idle.
    idle = hloroof.resolve_device("tpu_v5e:4x4", TEXT)
    assert any("so 12 sit idle" in n for n in idle.notes)
    with pytest.raises(ValueError, match="device= tpu_v5e:2x2 says topology 2x2 but topology= "
                                         "says 4x4"):
        hloroof.resolve_device("tpu_v5e:2x2", TEXT, topology="4x4")
    with pytest.raises(ValueError, match="did you mean 'tpu_v6e'"):
        hloroof.resolve_device("tpu_v6")


def test_memory_and_advise_reject_the_slices_the_command_rejects():
    for args in (("memory",), ("advise",)):
        cli = run_cli(*args, "-", "--device", "tpu_v5e:3x3", stdin=TEXT)
        assert cli.returncode == 1
        assert "no tpu_v5e slice is 3x3" in cli.stderr
    with pytest.raises(ValueError, match="no tpu_v5e slice is 3x3"):
        hloroof.memory(TEXT, "tpu_v5e:3x3")
    with pytest.raises(ValueError, match="no tpu_v5e slice is 3x3"):
        hloroof.advise(TEXT, "tpu_v5e:3x3")
    with pytest.raises(ValueError, match="no tpu_v5e slice is 3x3"):
        hloroof.device("tpu_v5e:3x3")
    # Aliases everywhere: a JAX device kind for memory, an accelerator type for advise.
    assert hloroof.memory(TEXT, "TPU v6 lite").capacity.device == "tpu_v6e"
    assert hloroof.advise(TEXT, "v5litepod-16").device == "tpu_v5e"
    assert hloroof.device("NVIDIA H100 80GB HBM3").name == "h100"
    with pytest.raises(ValueError, match="no name given"):
        hloroof.device(" ")
    # A spec with a topology keeps to the same slices as a name with one.
    with pytest.raises(ValueError, match="no tpu_v5e slice is 3x3"):
        hloroof.predict(TEXT, hloroof.device("tpu_v5e"), topology="3x3")
    assert hloroof.predict(TEXT, hloroof.device("tpu_v5e"), topology="4x4").topology == "4x4"


def test_memory_notes_the_idle_chips_as_the_command_does():
    cli = json.loads(run_cli("memory", "-", "--device", "tpu_v5e:4x4", "--json",
                             stdin=TEXT).stdout)
    r = hloroof.memory(TEXT, "tpu_v5e:4x4")
    idle = [n for n in r.notes if "sit idle" in n]
    assert idle and idle == [n for n in cli["notes"] if "sit idle" in n]

"""hloroof.Analysis (hloroof/analysis.h): one module analysed on one device at once gives what
predict, memory, advise and Prediction.write_xspace give one at a time for the same module and
device."""

import os
import pathlib

import pytest

import hloroof

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
V5E = SOURCE / "examples" / "tpu_v5e_train_step.hlo"

# Eight partitions and nothing that tells a platform: without a device, the device is a guess
# (a warning) and the slice is inferred (a note).
PLAIN = """HloModule plain, num_partitions=8
ENTRY e {
  p = f32[1024,1024] parameter(0)
  ROOT d = f32[1024,1024] dot(p, p), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


@pytest.fixture(scope="module")
def module():
    return hloroof.parse(V5E.read_text())


def test_each_result_is_the_one_made_alone(module):
    a = hloroof.Analysis(module, "tpu_v5e:2x2", advise=True)
    alone = hloroof.predict(module, "tpu_v5e:2x2")
    p = a.prediction()
    assert p.step_time_s > 0
    assert p.step_time_s == alone.step_time_s
    assert p.to_json() == alone.to_json()
    assert p.assumptions == alone.assumptions
    # The timeline is kept, and the records point into the module analysed.
    assert len(p.timeline) == len(alone.timeline) > 0
    assert p.ops[0].instruction.name == alone.ops[0].instruction.name
    memory = a.memory()
    assert memory.peak_bytes > 0
    assert memory.to_dict() == hloroof.memory(module, "tpu_v5e:2x2").to_dict()
    advice = a.advice()
    made = hloroof.advise(module, "tpu_v5e:2x2")
    assert advice.to_dict() == made.to_dict()
    assert str(advice) == str(made)
    # Each is made once: asked again, the same.
    assert a.prediction() is p
    assert a.advice() is advice


def test_what_choosing_the_device_said_is_said_as_predict_says_it():
    a = hloroof.Analysis(PLAIN)
    alone = hloroof.predict(PLAIN)
    p = a.prediction()
    assert any("a guess" in w for w in p.warnings)
    assert any("inferred" in n for n in p.assumptions)
    assert p.warnings == alone.warnings
    assert p.assumptions == alone.assumptions
    assert a.memory().to_dict() == hloroof.memory(PLAIN).to_dict()
    # Settings, as the command's --set: named in the assumptions, the figures changed.
    settings = ["hbm.bandwidth=1e11"]
    slow = hloroof.Analysis(PLAIN, "tpu_v5e:2x4", settings).prediction()
    assert "device figures set: hbm.bandwidth=1e11" in slow.assumptions
    assert slow.to_json() == hloroof.predict(PLAIN, "tpu_v5e:2x4", settings).to_json()
    assert slow.step_time_s > hloroof.predict(PLAIN, "tpu_v5e:2x4").step_time_s


def test_a_device_spec_with_a_slice_is_predict_s():
    spec = hloroof.device("tpu_v5e")
    a = hloroof.Analysis(PLAIN, spec, topology="4x2")
    alone = hloroof.predict(PLAIN, spec, topology="4x2")
    assert a.target.topology == "4x2"
    assert a.prediction().topology == "4x2"
    assert a.prediction().to_json() == alone.to_json()
    # No v5e slice is 8x1: the same error as predict's, when the analysis is made.
    with pytest.raises(ValueError) as alone_error:
        hloroof.predict(PLAIN, spec, topology="8x1")
    with pytest.raises(ValueError) as error:
        hloroof.Analysis(PLAIN, spec, topology="8x1")
    assert str(error.value) == str(alone_error.value)


def test_errors_are_the_prediction_s_and_what_was_not_asked_for():
    # A slice smaller than the module: resolving the device takes it, the prediction refuses it.
    with pytest.raises(ValueError) as alone_error:
        hloroof.predict(PLAIN, "tpu_v5e:1x1")
    a = hloroof.Analysis(PLAIN, "tpu_v5e:1x1")
    with pytest.raises(ValueError) as error:
        a.run()
    assert str(error.value) == str(alone_error.value)
    assert "has 1 devices" in str(error.value)
    with pytest.raises(ValueError):
        a.prediction()
    made = hloroof.Analysis(PLAIN, "tpu_v5e:2x4")
    with pytest.raises(ValueError, match="no advice"):
        made.advice()
    with pytest.raises(ValueError, match="no XSpace"):
        made.write_xspace()


def test_the_xspace_is_the_prediction_s(module, tmp_path):
    a = hloroof.Analysis(module, "tpu_v5e:2x2", xspace_dir=tmp_path / "together", run="r")
    written = a.write_xspace()
    alone = hloroof.predict(module, "tpu_v5e:2x2").write_xspace(tmp_path / "alone", run="r")
    assert pathlib.Path(written["path"]).is_file()
    assert written["path"].endswith("plugins/profile/r/hloroof-predicted.xplane.pb")
    assert written["events"] == alone["events"] > 0
    assert written["unfilled"] == alone["unfilled"]
    # The memory analysis the XSpace read, narrowed, is memory()'s.
    assert a.memory().to_dict() == hloroof.memory(module, "tpu_v5e:2x2").to_dict()
    assert a.prediction().to_json() == hloroof.predict(module, "tpu_v5e:2x2").to_json()

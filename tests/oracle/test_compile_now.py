"""Programs compiled by the installed JAX now, for the CPU and offline for TPU v5e: hloroof
parses what this JAX version prints and agrees with its memory_analysis(). Skipped without
JAX (and the TPU case without libtpu)."""

import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("jax")

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("HLOROOF_CLI")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    if CLI is None:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    out = tmp_path_factory.mktemp("xla")
    targets = "cpu,tpu_v5e_2x2"
    try:
        import libtpu  # noqa: F401
    except ImportError:
        targets = "cpu"
    subprocess.run([sys.executable, SOURCE / "tools" / "oracle" / "generate.py", "--out", out,
                    "--targets", targets, "--programs", "matmul_bf16,mlp,fori_loop"],
                   check=True, capture_output=True, timeout=300)
    return sorted(out.glob("*/*/module.hlo"))


def test_hloroof_reads_what_xla_prints_now(compiled):
    assert len(compiled) >= 3
    for module in compiled:
        meta = json.loads((module.parent / "meta.json").read_text())
        xla = json.loads((module.parent / "memory_analysis.json").read_text())
        args = [CLI, "memory", module, "--json"]
        if meta["hloroof_device"] != "cpu":
            args += ["--device", meta["hloroof_device"]]
        done = subprocess.run(args, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{module}: {done.stderr}"
        ours = json.loads(done.stdout)
        assert ours["argument_bytes"] == xla["argument_size_in_bytes"], module
        assert ours["alias_bytes"] == xla["alias_size_in_bytes"], module

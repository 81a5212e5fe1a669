"""tools/output_file.py: the writer of every file the Python tools write."""

import os
import pathlib
import subprocess
import sys

import pytest

TOOLS = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                    pathlib.Path(__file__).resolve().parents[2])) / "tools"
sys.path.insert(0, str(TOOLS))
from output_file import write_output  # noqa: E402


def test_replaces_whole_and_keeps_permissions(tmp_path):
    out = tmp_path / "table.tsv"
    out.write_text("old\n")
    out.chmod(0o640)
    write_output(out, "new\n")
    assert out.read_text() == "new\n"
    assert out.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.tsv"]  # no temporary left
    write_output(tmp_path / "new.json", b"{}")
    assert (tmp_path / "new.json").read_bytes() == b"{}"


def test_a_failed_write_leaves_the_old_file(tmp_path):
    out = tmp_path / "module.hlo"
    out.write_text("HloModule old\n")
    # A file-size limit of 1000 bytes, in a child process: writing 5000 bytes fails (EFBIG).
    script = (
        "import resource, signal, sys\n"
        f"sys.path.insert(0, {str(TOOLS)!r})\n"
        "from output_file import write_output\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))\n"
        f"write_output({str(out)!r}, 'x' * 5000)\n")
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode != 0
    assert "File too large" in run.stderr
    assert out.read_text() == "HloModule old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["module.hlo"]
    # An exception while writing (contents of the wrong type) leaves it too.
    with pytest.raises(TypeError):
        write_output(out, 12)
    assert out.read_text() == "HloModule old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["module.hlo"]


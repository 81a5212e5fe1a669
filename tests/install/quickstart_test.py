#!/usr/bin/env python3
"""The quick start and the pip build as a new user meets them (run by CTest).

- tools/setup.sh builds the library and the command only, then predicts: the first prediction
  does not wait for the tests' build (about 40 minutes on 2 cores).
- pip builds in a temporary folder of its own: pyproject.toml names no build folder inside the
  source tree, so a read-only checkout installs and two installs share nothing. (A pip wheel
  built by a user who cannot write the tree: 5 minutes on 2 cores.)
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def main() -> int:
    failures = []
    setup = (ROOT / "tools" / "setup.sh").read_text()
    builds = [m.group(0) for m in re.finditer(r"^cmake --build [^\n]*$", setup, re.M)]
    predict = setup.find("build/tools/hloroof predict")
    if predict < 0:
        failures.append("tools/setup.sh does not predict the example")
    for line in builds:
        if setup.find(line) < predict and "--target hloroof_cli" not in line:
            failures.append(f"tools/setup.sh builds more than the command first: {line!r}")
    if not any("--target hloroof_cli" in line for line in builds):
        failures.append("tools/setup.sh does not build the command on its own")
    pyproject = (ROOT / "pyproject.toml").read_text()
    if re.search(r"^\s*build-dir\s*=", pyproject, re.M):
        failures.append("pyproject.toml sets build-dir: pip would build inside the source tree")
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

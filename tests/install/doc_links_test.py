#!/usr/bin/env python3
"""Every file the README and docs/ name in backquotes exists (run by CTest).

The README once cited `cost-model.md`, a file the repository does not have. A name such as
`docs/accuracy.md`, `examples/README.md` or `bench/opfamilies.py` must be a file of the
repository; a bare `NAME.md` must be one of docs/ or the root. Lines that cite another
repository (openxla/xla's `docs/tiled_layout.md`) are not this repository's names.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMED = re.compile(r"`((?:docs|examples|bench|tools|data|tests)/[A-Za-z0-9_./-]+"
                   r"\.(?:md|py|sh|cc|h|json|tsv))`|`([A-Za-z0-9_-]+\.md)`")


# Files of other repositories the docs cite where the line does not say whose they are.
EXTERNAL = {"docs/tiled_layout.md"}  # openxla/xla's, cited in docs/hlo-text.md


def main() -> int:
    failures = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for line in doc.read_text().splitlines():
            if "openxla/" in line or "jax-ml/" in line:
                continue
            for m in NAMED.finditer(line):
                path, bare = m.group(1), m.group(2)
                if path and path not in EXTERNAL and not (ROOT / path).exists():
                    failures.append(f"{doc.relative_to(ROOT)} names {path}, which does not exist")
                if bare and not ((ROOT / "docs" / bare).exists() or (ROOT / bare).exists()):
                    failures.append(f"{doc.relative_to(ROOT)} names {bare}, which does not exist")
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Every file the READMEs and docs/ name in backquotes exists (run by CTest).

The README once cited `cost-model.md`, a file the repository does not have. A name such as
`docs/accuracy.md`, `examples/README.md`, `bench/opfamilies.py` or
`lib/memory/buffer_assignment.cc` must be a file of the repository (sources move between the
layers of lib/); a bare `NAME.md` must be one of docs/ or the root. Lines that cite another
repository (openxla/xla's `docs/tiled_layout.md`) are not this repository's names.

Figures the docs give of the repository itself are held to it too: "the N archives" is the
number of the library's layers (lib/CMakeLists.txt, HLOROOF_LAYERS), one archive each.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
NAMED = re.compile(r"`((?:docs|examples|bench|tools|data|tests|lib|include|python)/"
                   r"[A-Za-z0-9_./-]+\.(?:md|py|pyi|sh|cc|h|json|tsv|cmake|txt|hlo))`"
                   r"|`([A-Za-z0-9_-]+\.md)`")


# Files of other repositories the docs cite where the line does not say whose they are.
EXTERNAL = {
    "docs/tiled_layout.md",  # openxla/xla's, cited in docs/hlo-text.md
    "tests/utils/reference_hlo_llama3_8b.txt",  # AI-Hypercomputer/maxtext's reference HLO
}


ARCHIVES = re.compile(r"the (\d+) archives")


def layers() -> int:
    """The number of the library's layers, as lib/CMakeLists.txt lists them."""
    text = (ROOT / "lib" / "CMakeLists.txt").read_text()
    listed = re.search(r"set\(HLOROOF_LAYERS\s+([a-z\s]+?)\s+CACHE", text)
    return len(listed.group(1).split()) if listed else -1


def main() -> int:
    failures = []
    archives = layers()
    # The READMEs of the repository's folders (build trees, the virtual environment and git
    # worktrees under wt/, which .gitignore names, excepted).
    readmes = [p for p in sorted(ROOT.glob("*/**/README.md"))
               if not p.relative_to(ROOT).parts[0].startswith(("build", "wt", ".venv"))]
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *readmes]:
        for line in doc.read_text().splitlines():
            if "openxla/" in line or "jax-ml/" in line:
                continue
            for m in ARCHIVES.finditer(line):
                if int(m.group(1)) != archives:
                    failures.append(f"{doc.relative_to(ROOT)} says {m.group(0)}; the library "
                                    f"has {archives} (one a layer)")
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

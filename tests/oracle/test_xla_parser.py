"""hloroof's parser against XLA's own (jaxlib's hlo_module_from_text), and a few programs
compiled now, so that a new JAX version's syntax shows at once. Skipped without JAX.

Accepts: on the XLA corpus, tests/hostile and deterministic mutations, XLA accepts a text
exactly when `hloroof parse` does, but for the differences listed in KNOWN. Printing: the text
`hloroof parse --print` writes parses in XLA to the module XLA reads from the original.
"""

import os
import pathlib
import subprocess
import sys

import pytest

jax = pytest.importorskip("jax")
hlo = pytest.importorskip("jaxlib._hlo")

SOURCE = pathlib.Path(os.environ.get("HLOROOF_SOURCE_DIR",
                                     pathlib.Path(__file__).resolve().parents[2]))
CLI = os.environ.get("HLOROOF_CLI")
XLA_DATA = SOURCE / "tests" / "data" / "xla"
MODULES = sorted(XLA_DATA.glob("*/*/module.hlo"))
HOSTILE = sorted((SOURCE / "tests" / "hostile" / "inputs").glob("*.hlo"))


def cli():
    if CLI is None:
        pytest.skip("the hloroof command-line tool was not built (HLOROOF_CLI unset)")
    return CLI


def hloroof_accepts(text):
    done = subprocess.run([cli(), "parse", "-"], input=text.encode(), capture_output=True,
                          check=False, timeout=60)
    return done.returncode == 0


XLA_PARSE = ("import sys, jaxlib._hlo as h\n"
             "h.hlo_module_from_text(sys.stdin.buffer.read().decode('utf-8', 'replace'))")


def xla_accepts(text):
    """True, False, or "crash": XLA's parser aborts the process on some inputs, so it runs in
    a child process."""
    done = subprocess.run([sys.executable, "-c", XLA_PARSE], input=text.encode(),
                          capture_output=True, check=False, timeout=60)
    if done.returncode < 0:
        return "crash"
    return done.returncode == 0


def mutations(text):
    """A bounded, deterministic set: drop a token, change a shape, truncate."""
    lines = text.splitlines(keepends=True)
    entry = next(i for i, line in enumerate(lines) if line.startswith("ENTRY"))
    body = entry + 1
    yield "truncated", text[: len(text) // 2]
    yield "no closing brace", text.rstrip().removesuffix("}")
    yield "parameter dropped", "".join(lines[:body] + lines[body + 1:]) \
        if "parameter(" in lines[body] else text.replace("parameter(0)", "parameter()", 1)
    yield "opcode misspelt", text.replace(" fusion(", " fusio(", 1) \
        if " fusion(" in text else text.replace(" parameter(", " paramter(", 1)
    yield "element type unknown", text.replace("f32[", "f33[", 1)
    yield "shape rank changed", text.replace("[", "[1,", 1)


def test_xla_corpus_accepted_by_both():
    assert MODULES
    for module in MODULES:
        text = module.read_text()
        hlo.hlo_module_from_text(text)  # raises if XLA rejects it
        assert hloroof_accepts(text), module


# Inputs where XLA's parser aborts the process (hloroof rejects them with an error).
XLA_CRASHES = {"parameter_number_2p31.hlo"}


@pytest.mark.parametrize("path", HOSTILE, ids=lambda p: p.name)
def test_hostile_inputs(path):
    text = path.read_bytes().decode("utf-8", errors="replace")
    xla, ours = xla_accepts(text), hloroof_accepts(text)
    if xla == "crash":
        assert path.name in XLA_CRASHES and not ours
    else:
        assert ours == xla


# Mutations where the two parsers disagree, and why (none are known to be wrong).
KNOWN = {}


@pytest.mark.parametrize("module", MODULES[::15], ids=lambda p: f"{p.parent.parent.name}/"
                         f"{p.parent.name}")
def test_mutations(module):
    for name, text in mutations(module.read_text()):
        xla, ours = xla_accepts(text), hloroof_accepts(text)
        if KNOWN.get(name) == (xla, ours):
            continue
        assert ours == xla, f"{name}: XLA accepts {xla}, hloroof {ours}"


@pytest.mark.parametrize("module", MODULES[::5], ids=lambda p: f"{p.parent.parent.name}/"
                         f"{p.parent.name}")
def test_printed_text_is_the_same_module(module):
    printed = subprocess.run([cli(), "parse", "--print", module], capture_output=True,
                             text=True, check=True, timeout=60).stdout
    original = hlo.hlo_module_from_text(module.read_text()).to_string()
    assert hlo.hlo_module_from_text(printed).to_string() == original

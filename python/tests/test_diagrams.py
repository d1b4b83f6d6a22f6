"""`Explanation.to_wavedrom()` and `to_svg()` draw what `xstore ISA explain
--format wavedrom|svg` prints for the same input."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any, List

import pytest

import xstore
from conftest import ROOT
from xstore import neuron, pto, q7

# One instruction of each ISA: the ISA, its assembly text, and whether the
# command line is given its bytes (hex) or the text itself.
CASES = [
    ("neuron", "tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)", True),
    ("pto", "BSTART.TSTORE U8", True),
    ("pto", "B.IOT T#1, mask=1000, last", True),
    ("q7", "IVP_SV2NX8_IP v0, a3, 64", True),
    ("q7", "IVP_SV2NX8_IP v0, a3, 64", False),  # text: drawn from its bytes
    ("neuron", "tensor_store", False),  # a mnemonic: its spans, without bytes
]


def cli_explain(cli: pathlib.Path, isa: str, arg: str, fmt: str, json_errors: bool = False) -> str:
    args = [str(cli), *(["--json"] if json_errors else []), isa, "explain", arg, "--format", fmt]
    out = subprocess.run(args, cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == (2 if json_errors else 0), out.stderr
    return out.stdout


def explained(isa: str, text: str, as_bytes: bool) -> List[xstore.Explanation]:
    if not as_bytes:
        return xstore.explain(isa, text)
    return xstore.explain(isa, xstore.asm(isa, text))


@pytest.mark.parametrize("isa,text,as_bytes", CASES, ids=[f"{c[0]}:{c[1]}:{c[2]}" for c in CASES])
def test_diagrams_are_the_clis(cli: pathlib.Path, isa: str, text: str, as_bytes: bool) -> None:
    [e] = explained(isa, text, as_bytes)
    arg = e.hex if as_bytes else text
    assert e.to_svg() == cli_explain(cli, isa, arg, "svg")
    wave: Any = json.loads(cli_explain(cli, isa, arg, "wavedrom"))
    assert [e.to_wavedrom()] == wave
    assert json.loads(json.dumps(e.to_wavedrom())) == wave[0]


def test_each_explanation_of_a_stream_is_one_diagram(cli: pathlib.Path) -> None:
    b = xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; BSTOP")
    ex = xstore.explain("pto", b)
    assert len(ex) > 1
    want = json.loads(cli_explain(cli, "pto", b.hex(), "wavedrom"))
    assert [e.to_wavedrom() for e in ex] == want


def test_instructions_draw_as_their_explanations(cli: pathlib.Path) -> None:
    [n] = neuron.decode(xstore.asm("neuron", CASES[0][1]))
    [w] = pto.decode(xstore.asm("pto", "BSTOP"))
    [b] = q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
    for isa, i in (("neuron", n), ("pto", w), ("q7", b)):
        e = i.explain()
        assert e.to_svg() == cli_explain(cli, isa, bytes(i).hex(), "svg")
        assert [e.to_wavedrom()] == json.loads(cli_explain(cli, isa, bytes(i).hex(), "wavedrom"))
    [t] = q7.assemble("IVP_SV2NX8_IP v0, a3, 64")
    assert t.explain().to_svg() == b.explain().to_svg()


def test_the_svg_is_a_standalone_document() -> None:
    [e] = xstore.explain("q7", xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
    svg = e.to_svg()
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and svg.endswith("</svg>\n")
    d = e.to_wavedrom()
    assert d["config"]["bits"] == 64 and d["config"]["lanes"] == 2
    assert sum(f["bits"] for f in d["reg"]) == 64


@pytest.mark.parametrize("fmt", ["svg", "wavedrom"])
def test_a_bare_mnemonic_has_nothing_to_draw(cli: pathlib.Path, fmt: str) -> None:
    [e] = xstore.explain("q7", "IVP_SA2NX8_IP")
    with pytest.raises(xstore.InputError) as ei:
        e.to_svg() if fmt == "svg" else e.to_wavedrom()
    err = ei.value
    want = json.loads(cli_explain(cli, "q7", "IVP_SA2NX8_IP", fmt, json_errors=True))["error"]
    assert (err.kind, err.message, err.hint) == (want["kind"], want["message"], want["hint"])
    assert err.message == "`IVP_SA2NX8_IP` has no bit fields to draw: it is explained without bytes"
    assert str(err).endswith(": error: " + err.message)


def test_an_explanation_pickles_with_its_isa() -> None:
    import pickle

    [e] = xstore.explain("q7", "IVP_SV2NX8_IP v0, a3, 64")
    back = pickle.loads(pickle.dumps(e))
    assert back == e and back.to_svg() == e.to_svg()

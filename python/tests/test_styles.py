"""Text styles: the command line and the Python package print the same text
for the same options, `format(inst, spec)` specs, and the errors naming a bad
option or spec."""

from __future__ import annotations

import itertools
import pathlib
import subprocess
from typing import Dict, List

import pytest

import xstore

SAMPLES = {
    "neuron": "tensor_load.u32 [0xfa0], num_elem=(2,1), reg=(r4,r5), sem=0xab\n"
              "tensor_store.0xfc [0x10], num_elem=(1,1), src=imm, data=0x" + "00" * 32,
    "pto": "BSTART.TSTORE U8; B.DIM a0, 64, ->LB1; B.IOR a0, a1\n"
           "B.IOT T#2, mask=1111, last; BSTOP",
    "q7": "IVP_SV2NX8_IP v3, a2, 64\n"
          ".byte 0x0f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x03",
}

OPTIONS = {
    "hex_case": ["lower", "upper"],
    "hex_style": ["0x", "h"],
    "reg_case": ["canonical", "upper", "lower"],
    "reg_names": ["canonical", "short"],
}

STYLES: List[Dict[str, str]] = [
    dict(zip(OPTIONS, values)) for values in itertools.product(*OPTIONS.values())
]


def flags(style: Dict[str, str]) -> List[str]:
    out: List[str] = []
    for name, value in style.items():
        out += ["--" + name.replace("_", "-"), value]
    return out


@pytest.mark.parametrize("isa", sorted(SAMPLES))
def test_cli_and_python_print_the_same_text(cli: pathlib.Path, isa: str) -> None:
    data = xstore.asm(isa, SAMPLES[isa])
    for style in STYLES:
        ours = xstore.disasm(isa, data, **style)
        theirs = subprocess.run(
            [str(cli), isa, "disasm", *flags(style), data.hex()],
            check=True, capture_output=True,
        ).stdout
        assert theirs == "".join(line + "\n" for line in ours).encode(), style
        assert xstore.asm(isa, "\n".join(ours)) == data, style


@pytest.mark.parametrize("isa", sorted(SAMPLES))
def test_format_methods_and_specs_agree(isa: str) -> None:
    module = getattr(xstore, isa)
    data = xstore.asm(isa, SAMPLES[isa])
    insts = module.decode(data)
    spec_of = {"hex_case": {"upper": "X"}, "hex_style": {"h": "h"},
               "reg_case": {"upper": "R", "lower": "r"}, "reg_names": {"short": "s"}}
    for style in STYLES:
        spec = "".join(spec_of[k].get(v, "") for k, v in style.items())
        text = [i.format(**style) for i in insts]
        assert text == xstore.disasm(isa, data, **style)
        assert [format(i, spec) for i in insts] == text, spec
    for i in insts:
        assert format(i, "") == i.text == i.format() == f"{i}"


def test_specs_print_what_they_say() -> None:
    [i] = xstore.neuron.decode(xstore.asm("neuron", "tensor_load.u32 [0xfa0], num_elem=(2,1), reg=(r4,r5)"))
    assert f"{i:XhR}" == "tensor_load.u32 [0FA0h], num_elem=(2,1), reg=(R4,R5)"
    assert f"{i:x}" == i.text
    [t] = xstore.pto.decode(xstore.asm("pto", "B.IOT T#2, mask=1111"))
    assert f"{t:sr}" == "B.IOT t2, mask=1111"


def test_bad_options_and_specs_are_named() -> None:
    data = xstore.asm("pto", "BSTOP")
    with pytest.raises(xstore.InputError, match="hex_case `UPPER` is not one of lower, upper"):
        xstore.disasm("pto", data, hex_case="UPPER")
    [i] = xstore.pto.decode(data)
    with pytest.raises(xstore.InputError, match="reg_names `long`"):
        i.format(reg_names="long")
    with pytest.raises(xstore.InputError, match="unknown character `q` at 2"):
        format(i, "Xq")
    with pytest.raises(ValueError, match="`r` and `R` both set reg_case"):
        format(i, "Rr")

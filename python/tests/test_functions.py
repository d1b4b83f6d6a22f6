"""The module-level functions against the command line's JSON."""

from __future__ import annotations

import json
import pathlib
import subprocess
from typing import Any, List

import pytest

import xstore
from conftest import ROOT

STORE_U16 = "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)"
# The bundled examples: the scenario files of examples/<isa> for each ISA of
# the registry (examples/cosim holds a generator configuration, not a scenario).
EXAMPLES = sorted(p for isa in xstore.isa_names() for p in (ROOT / "examples" / isa).glob("*.toml"))


def cli_json(cli: pathlib.Path, *args: str, stdin: str = "") -> Any:
    out = subprocess.run([str(cli), "--json", *args], cwd=ROOT, input=stdin,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def test_asm_and_disasm_round_trip(cli: pathlib.Path) -> None:
    b = xstore.asm("neuron", STORE_U16)
    assert isinstance(b, bytes) and len(b) == 64
    assert cli_json(cli, "neuron", "asm", stdin=STORE_U16)["hex"] == [b.hex()]
    assert xstore.disasm("neuron", b) == [STORE_U16]
    pto = xstore.asm("pto", "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP")
    assert len(xstore.disasm("pto", pto)) == 4
    q7 = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64")
    assert q7.hex() == "1f03049c945e9c02"
    assert xstore.disasm("q7", bytearray(q7)) == ["IVP_SV2NX8_IP v0, a3, 64"]


def test_bytes_like_inputs_are_read_without_conversion() -> None:
    b = xstore.asm("neuron", STORE_U16)
    for data in (b, bytearray(b), memoryview(b)):
        assert xstore.disasm("neuron", data) == [STORE_U16]
    with pytest.raises(TypeError):
        xstore.disasm("neuron", "ab10")  # type: ignore[arg-type]


def test_validate_is_the_cli_json(cli: pathlib.Path) -> None:
    b = xstore.asm("neuron", STORE_U16)
    v = xstore.validate("neuron", b)
    assert v.valid and v.failed == [] and bool(v)
    assert v.to_dict() == cli_json(cli, "neuron", "validate", b.hex())
    c = v.checks[0]
    assert (c.name, c.passed, c.origin) == ("has_valid_neuron_header", True, "spec")
    bad = xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)")
    v = xstore.validate("neuron", bad)
    assert not v.valid and "valid_start_addr" in v.failed
    assert any(c.passed is None for c in xstore.validate("neuron", b).checks)


def test_explain_is_the_cli_json(cli: pathlib.Path) -> None:
    b = xstore.asm("neuron", STORE_U16)
    ex = xstore.explain("neuron", b)
    assert [e.to_dict() for e in ex] == cli_json(cli, "neuron", "explain", b.hex())
    f = ex[0].fields[0]
    assert (f.name, f.bits, f.raw) == ("header.opcode", "byte 0", "0xab")
    assert f.meaning and f.provenance == "seed/observed/high"
    assert f.span == {"lsb": 0, "width": 8, "kind": "value"}
    assert ex[0].fields[13].span == {"lsb": 128, "width": 64, "kind": "value"}
    assert ex[0].title.startswith("TENSOR_STORE") and ex[0].hex == b.hex() and ex[0].notes
    # Q7 also explains a mnemonic.
    [m] = xstore.explain("q7", "IVP_SAV2NX8_XP")
    assert m.title == "IVP_SAV2NX8_XP" and m.hex == ""
    assert all(f.span is None for f in m.fields)


def test_the_examples_are_the_registrys(cli: pathlib.Path) -> None:
    rows = cli_json(cli, "demo")["scenarios"]
    assert [str(p.relative_to(ROOT)) for p in EXAMPLES] == sorted(r["path"] for r in rows)
    assert len(EXAMPLES) >= 30


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_runs_as_the_cli_runs_it(cli: pathlib.Path, path: pathlib.Path) -> None:
    r = xstore.run(path)
    want = cli_json(cli, "run", str(path))
    got = r.to_dict()
    assert got == want
    assert r.outcome == want["outcome"] and r.executed == want["executed"]
    assert [(a, b.hex()) for a, b in r.writes] == [(w["addr"], w["hex"]) for w in want["writes"]]
    assert r.expect is not None and r.expect.passed and r.expect.failures == []
    if want["fault"] is None:
        assert r.fault is None
    else:
        assert r.fault is not None
        assert (r.fault.kind, r.fault.address, r.fault.message) == (
            want["fault"]["kind"], want["fault"]["address"], want["fault"]["message"])
        assert r.fault.instruction == want["fault"].get("instruction")
        assert r.fault.code == want["fault"].get("code")
    assert r.warnings == want["warnings"]
    changed = {x["name"]: x["value"] for x in want["regs"]}
    assert {k: (v.hex() if isinstance(v, bytes) else v) for k, v in r.regs.items()} == changed


def test_run_from_text_with_dumps(cli: pathlib.Path) -> None:
    path = ROOT / "examples/neuron/store_u8_imm.toml"
    r = xstore.run(text=path.read_text(), dumps=[(0x100, 8)])
    assert r.dump == [(0x100, bytes.fromhex("01020304feff1000"))]
    assert r.to_dict() == cli_json(cli, "run", str(path), "--dump", "0x100:8")


def test_lint_is_the_cli_json(cli: pathlib.Path) -> None:
    path = ROOT / "examples/q7/source_s4.toml"
    findings = xstore.lint(path)
    assert [f.to_dict() for f in findings] == cli_json(cli, "lint", str(path))["findings"]
    rules = [f.rule for f in findings]
    assert "valign_pending_at_end" in rules
    f = findings[rules.index("valign_pending_at_end")]
    assert f.severity == "warning" and f.line == 14 and "pending" in f.message
    assert xstore.lint(text=path.read_text())[0].rule == findings[0].rule


def test_input_error_carries_the_cli_error(cli: pathlib.Path) -> None:
    with pytest.raises(xstore.InputError) as ei:
        xstore.asm("q7", "IVP_SBN_I v0, a3, 0")
    e = ei.value
    assert isinstance(e, xstore.Error)
    assert e.rule == "operand_class"
    assert e.location == xstore.Location(line=1, col=11)
    assert e.expected == "a vbool register (vb0..vb15)"
    assert str(e).startswith("<input>:1:11: error: operand 1 of IVP_SBN_I is the vec register `v0`")
    want = cli_json(cli, "q7", "asm", stdin="IVP_SBN_I v0, a3, 0")["error"]
    assert (e.kind, e.message, e.rule, e.expected, e.hint) == (
        want["kind"], want["message"], want["rule"], want["expected"], want["hint"])


def test_input_error_of_bytes_and_hint() -> None:
    b = xstore.asm("neuron", STORE_U16)
    with pytest.raises(xstore.InputError) as ei:
        xstore.disasm("neuron", b + b[:10])
    e = ei.value
    assert e.location.offset == 64 and e.location.line is None
    assert e.hint == "the instruction at byte 64 has 10 of its 64 bytes"
    assert "\n" not in str(e)


def test_scenario_errors_name_the_key() -> None:
    with pytest.raises(xstore.InputError) as ei:
        xstore.run(text='isa = "q7"\nprogam = "IVP_ZALIGN u0"\n')
    e = ei.value
    assert e.location.line == 2 and e.location.file == "<input>"
    assert e.hint is not None and "program" in e.hint
    with pytest.raises(xstore.InputError):
        xstore.run(ROOT / "no/such/file.toml")
    with pytest.raises(xstore.InputError):
        xstore.asm("mips", "nop")


def test_isa_names() -> None:
    names: List[str] = xstore.isa_names()
    assert names == ["neuron", "pto", "q7"]


def test_every_registered_isa_has_its_module() -> None:
    # The registry's ISAs (xstore.isa_names()) each have a module with the
    # embedding API, reachable as xstore.<isa>.
    import importlib

    for name in xstore.isa_names():
        mod = importlib.import_module(f"xstore.{name}")
        for attr in ["decode", "check", "Machine", "Instruction"]:
            assert hasattr(mod, attr), f"xstore.{name}.{attr}"
        assert getattr(xstore, name) is mod


@pytest.mark.parametrize("call", [xstore.run, xstore.lint], ids=["run", "lint"])
def test_a_file_that_cannot_be_read_is_named(call: Any) -> None:
    # The error names the file, in its message and in its location (not `<input>`).
    with pytest.raises(xstore.InputError) as ei:
        call("examples/nope.toml")
    e = ei.value
    assert e.kind == "io" and e.location.file == "examples/nope.toml"
    assert str(e).startswith("examples/nope.toml: error: cannot read `examples/nope.toml`")
    assert "<input>" not in str(e)


def test_run_shows_its_defaults_in_help() -> None:
    import inspect

    sig = inspect.signature(xstore.run)
    assert str(sig) == "(path=None, *, text=None, dumps=(), keep_bytes=1048576, trace=None)"
    assert sig.parameters["dumps"].default == ()


def test_check_origins_spec_assumed_and_prose() -> None:
    # One check of each origin the Rust side gives (report::CheckOrigin).
    neuron = xstore.validate("neuron", xstore.asm(
        "neuron", "tensor_load.u8 [0x0], num_elem=(1,1), reg=(r1)"))
    by_name = {c.name: c for c in neuron.checks}
    assert by_name["has_valid_neuron_header"].origin == "spec"
    assert by_name["register_number_below_64"].origin == "assumed"
    assert {c.origin for c in neuron.checks} == {"spec", "assumed"}
    block = xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000, last; "
                              "B.DATR NORM, FP64; BSTOP")
    pto = xstore.validate("pto", block)
    prose = [c for c in pto.checks if c.origin == "prose"]
    assert [c.name for c in prose] == ["datr_before_bindings"]
    # A failed prose check is reported but does not decide the verdict.
    assert prose[0].passed is False and pto.valid and pto.failed == []
    assert prose[0].to_dict()["origin"] == "prose"

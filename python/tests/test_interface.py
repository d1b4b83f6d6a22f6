"""One instruction interface across the three ISAs (`xstore.Instruction`),
`decode_into`, the reports' `to_dict()`, the exception classes, and PTO's
tiles read back from a machine."""

from __future__ import annotations

import copy
import pickle
from typing import Any, Dict, List

import pytest

import xstore
from xstore import neuron, pto, q7

NEURON = "tensor_store.u16 [0x1000], num_elem=(2,1), imm=(1,2)"
PTO_BLOCK = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
Q7_STORE = "IVP_SV2NX8_IP v0, a3, 64"
TLOAD = ("BSTART.TLOAD U8; C.B.DIMI 4, ->LB0; C.B.DIMI 2, ->LB1; B.IOR a0, a1; "
         "B.IOT mask=1000, last, ->T<1>; BSTOP")


def describe(i: xstore.Instruction) -> Dict[str, Any]:
    """What the protocol promises, typed (mypy checks each class against it)."""
    return {"bytes": bytes(i), "encode": i.encode(), "text": i.text, "str": str(i),
            "fields": i.fields, "explain": i.explain(), "validate": i.validate()}


def instructions() -> List[xstore.Instruction]:
    return [neuron.decode(xstore.asm("neuron", NEURON))[0],
            *pto.decode(xstore.asm("pto", PTO_BLOCK)),
            q7.decode(xstore.asm("q7", Q7_STORE))[0]]


def test_every_instruction_class_answers_the_one_interface() -> None:
    for i in instructions():
        assert isinstance(i, xstore.Instruction)
        d = describe(i)
        assert d["bytes"] == d["encode"] and d["text"] == d["str"]
        assert isinstance(d["explain"], xstore.Explanation)
        assert isinstance(d["validate"], xstore.Validation)
        assert d["fields"] == {f.name: f.raw for f in d["explain"].fields} and d["fields"]
    [b] = q7.decode(xstore.asm("q7", Q7_STORE))
    assert b.fields["format"] == "0xf" and bytes(b) == xstore.asm("q7", Q7_STORE)
    [z] = q7.assemble("IVP_ZALIGN u0")
    assert isinstance(z, xstore.Instruction) and z.explain().title == "IVP_ZALIGN u0"
    with pytest.raises(xstore.InputError):
        bytes(z)  # no public encoding


def test_instructions_are_equal_and_hash_alike_by_their_bytes() -> None:
    for make in (lambda: instructions(), lambda: [copy.copy(i) for i in instructions()],
                 lambda: [pickle.loads(pickle.dumps(i)) for i in instructions()]):
        for a, b in zip(instructions(), make()):
            assert a == b and hash(a) == hash(b) and a is not b
    assert len(set(instructions() + instructions())) == len(instructions())
    words = pto.decode(xstore.asm("pto", PTO_BLOCK))
    assert words[0] != words[1] and words[0] != neuron.decode(xstore.asm("neuron", NEURON))[0]
    # A Q7 bundle decoded from bytes equals the one assembled from its text.
    [decoded] = q7.decode(xstore.asm("q7", Q7_STORE))
    [assembled] = q7.assemble(Q7_STORE)
    assert decoded == assembled and hash(decoded) == hash(assembled)
    # Without public bytes: equal by text.
    assert q7.assemble("IVP_ZALIGN u0") == q7.assemble("IVP_ZALIGN u0")
    assert q7.assemble("IVP_ZALIGN u0")[0] != q7.assemble("IVP_ZALIGN u1")[0]


def test_repr_is_the_call_that_makes_the_instruction_again() -> None:
    [textual] = q7.assemble("{ IVP_ZALIGN u1 ; IVP_SA2NX8_IP v0, u0, a3 }")
    for i in [*instructions(), textual]:
        back = eval(repr(i), {"xstore": xstore})
        assert type(back) is type(i) and back == i and back.text == i.text
    assert repr(instructions()[0]).startswith("xstore.neuron.decode(bytes.fromhex('ab")
    assert repr(textual).startswith("xstore.q7.assemble(")


def test_a_q7_bundle_of_several_operations_explains_in_one() -> None:
    [two] = q7.assemble("{ IVP_ZALIGN u1 ; IVP_SA2NX8_IP v0, u0, a3 }")
    e = two.explain()
    assert isinstance(e, xstore.Explanation)
    assert e.title == "{ IVP_ZALIGN u1 ; IVP_SA2NX8_IP v0, u0, a3 }"
    names = [f.name for f in e.fields]
    assert names[0] == "instruction" and names.count("instruction") == 1
    assert any(n.startswith("op0.") for n in names) and any(n.startswith("op1.") for n in names)
    assert set(two.fields) == set(names)


@pytest.mark.parametrize("isa,text", [("neuron", NEURON), ("pto", PTO_BLOCK), ("q7", Q7_STORE)])
def test_decode_into_refills_one_object(isa: str, text: str) -> None:
    mod: Any = getattr(xstore, isa)
    data = xstore.asm(isa, "\n".join([text] * 3) if isa != "pto" else text)
    want = mod.decode(data)
    it = mod.decode_into(data)
    assert len(it) == len(want)
    got = [(id(i), copy.copy(i)) for i in it]
    assert len({k for k, _ in got}) == 1, "one object, refilled"
    assert [c for _, c in got] == want and len(it) == 0
    # Into an object of the caller's.
    mine = mod.decode(data)[-1]
    seen = [i is mine and i == w for i, w in zip(mod.decode_into(bytearray(data), mine), want)]
    assert seen == [True] * len(want) and mine == want[-1]
    with pytest.raises(xstore.InputError):
        mod.decode_into(data[:-1])  # the error of decode, before the first step
    with pytest.raises(TypeError):
        mod.decode_into(data, "not an instruction")


def test_effects_and_every_report_have_to_dict() -> None:
    b = xstore.asm("neuron", NEURON)
    fx = neuron.Machine().execute(b)
    d = fx.to_dict()
    assert d["writes"] == [{"addr": 0x1000, "hex": "01000200"}]
    assert (d["outcome"], d["executed"], d["fault"], d["regs"], d["warnings"]) == (
        "ok", 1, None, [], [])
    assert (d["write_count"], d["bytes_written"], d["truncated"]) == (1, 4, False)
    assert pickle.loads(pickle.dumps(fx)).to_dict() == d
    # The same writes as the scenario run of the command line's JSON.
    run = xstore.run("examples/neuron/store_u8_imm.toml")
    prog = xstore.asm("neuron", "tensor_store.u8 [0x100], num_elem=(8,1), "
                      "imm=(1,2,3,4,0xfe,0xff,0x10,0)")
    assert neuron.Machine().execute(prog).to_dict()["writes"] == run.to_dict()["writes"]
    v = neuron.check(b * 2)
    assert v.to_dict() == {"isa": "neuron", "count": 2, "valid": True, "invalid": []}
    f = xstore.run("examples/q7/unmapped_fault.toml").fault
    assert f is not None and f.to_dict() == xstore.run(
        "examples/q7/unmapped_fault.toml").to_dict()["fault"]
    e = run.expect
    assert e is not None and e.to_dict() == {"failures": [], "passed": True}
    pending = pto.Machine()
    pending.set_shared(5, dtype="U8", capacity=128, cols=16, valid_rows=1, valid_cols=4,
                       published=False)
    pd = pending.execute("BSTART.TSTORE U8; B.IOS S5, mask=1111; BSTOP").to_dict()
    assert pd["outcome"] == "pending" and pd["warnings"]


def test_input_error_is_a_value_error_and_a_fault_is_not() -> None:
    with pytest.raises(ValueError):
        xstore.asm("q7", "IVP_SBN_I v0, a3, 0")
    assert issubclass(xstore.InputError, ValueError) and issubclass(xstore.InputError, xstore.Error)
    assert not issubclass(xstore.Fault, ValueError) and issubclass(xstore.Fault, xstore.Error)
    try:
        neuron.Machine(memory=xstore.Memory([(0, 0x100, "r")])).execute(
            xstore.asm("neuron", "tensor_store.u8 [0x10], num_elem=(1,1), imm=(1)"))
    except ValueError:
        raise AssertionError("a fault is not bad input")
    except xstore.Fault as f:
        assert f.kind == "read_only"


def loaded() -> pto.Machine:
    """A PTO machine whose PE0 loaded a 2 x 4 U8 tile into T#1."""
    m = pto.Machine()
    m.memory.write(0x100, bytes(range(1, 9)))
    m.regs["pe0.a0"] = 0x100
    m.regs["pe0.a1"] = 4
    assert m.execute(TLOAD).executed == 1
    return m


def test_pto_tiles_read_back_after_a_tload() -> None:
    assert pto.Machine().tile(0, "T#1") is None
    m = loaded()
    t = m.tile(0, "T#1")
    assert t is not None and m.tile(0, "t1") == t
    assert (t.shared, t.dtype, t.shape, t.valid_rows, t.valid_cols) == (False, "U8", (2, 4), 2, 4)
    assert (t.layout, t.location, t.published, t.undefined) == ("row_major", "vector", True, [])
    assert t.data == list(range(1, 9))
    assert bytes(t) == t.payload and len(t.payload) == t.capacity
    assert t.payload[:t.cols * 2] == bytes(range(1, 9))  # row-major at Col elements a row
    assert m.tile(1, "T#1") is None  # outside the mask
    d = t.to_dict()
    assert (d["dtype"], d["data"], d["payload"][:4]) == ("U8", list(range(1, 9)), "0102")
    with pytest.raises(xstore.InputError):
        m.tile(4, "T#1")
    with pytest.raises(xstore.InputError):
        m.tile(0, "T#0")
    with pytest.raises(xstore.InputError):
        m.shared(64)
    # The tile stores back what was loaded.
    m.regs["pe0.a2"] = 0x400
    m.regs["pe0.a3"] = 4
    fx = m.execute("BSTART.TSTORE U8; B.IOR a2, a3; B.IOT T#1, mask=1000, last; BSTOP")
    assert fx.writes == [(0x400, bytes(t.data))]


def test_pto_shared_tiles_and_undefined_elements() -> None:
    m = pto.Machine()
    assert m.shared(5) is None
    m.set_shared(5, dtype="S16", capacity=128, cols=8, valid_rows=2, valid_cols=3,
                 published=False, data=[-1, 2, -3, 4, -5, 6], undefined=[4])
    s = m.shared(5)
    assert s is not None and s.shared and not s.published and s.undefined == [4]
    assert s.data[:3] == [0xFFFF, 2, 0xFFFD]
    local = loaded().tile(0, "T#1")
    assert local is not None and "published" not in local.to_dict()
    assert s.to_dict()["published"] is False
    back = pickle.loads(pickle.dumps(s))
    assert back == s and hash(back) == hash(s) and back.undefined == [4] and not back.published
    t = loaded().tile(0, "T#1")
    assert t is not None and pickle.loads(pickle.dumps(t)) == t and t != s


def test_pto_tiles_as_numpy_arrays_of_their_dtype() -> None:
    np = pytest.importorskip("numpy")
    t = loaded().tile(0, "T#1")
    assert t is not None
    a = t.to_numpy()
    assert a.dtype == np.uint8 and a.shape == (2, 4)
    assert np.array_equal(a, np.arange(1, 9, dtype=np.uint8).reshape(2, 4))
    m = pto.Machine()
    cases = [
        ("S16", [-1, 2, -3, 4], np.int16, np.array([[-1, 2], [-3, 4]], dtype=np.int16)),
        ("FP16", np.array([1.5, -2, 0.25, 8], dtype=np.float16).view(np.uint16), np.float16,
         np.array([[1.5, -2], [0.25, 8]], dtype=np.float16)),
        ("FP32", np.array([1.5, -2, 0.25, 8], dtype=np.float32).view(np.uint32), np.float32,
         np.array([[1.5, -2], [0.25, 8]], dtype=np.float32)),
        ("S4X2", [-1, 7, -8, 3], np.int8, np.array([[-1, 7], [-8, 3]], dtype=np.int8)),
        ("U4X2", [15, 7, 8, 3], np.uint8, np.array([[15, 7], [8, 3]], dtype=np.uint8)),
        ("BF16", [0x3FC0, 1, 2, 3], np.uint16, np.array([[0x3FC0, 1], [2, 3]], dtype=np.uint16)),
        ("E4M3", [1, 2, 3, 255], np.uint8, np.array([[1, 2], [3, 255]], dtype=np.uint8)),
    ]
    for dtype, data, np_type, want in cases:
        m.set_tile(0, "T#2", dtype=dtype, capacity=128, cols=32 if "4X2" in dtype else 16,
                   valid_rows=2, valid_cols=2, data=data)
        got = m.tile(0, "T#2")
        assert got is not None
        arr = got.to_numpy()
        assert arr.dtype == np_type and np.array_equal(arr, want), dtype
        arr[0, 0] = 0  # a copy: the tile is unchanged
        assert got.to_numpy()[0, 0] == want[0, 0]

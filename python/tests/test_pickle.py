"""Every result object and exception pickles to an equal object, through
`pickle` and through a real `multiprocessing.Pool` (how a campaign is spread
over processes)."""

from __future__ import annotations

import multiprocessing
import pickle
from typing import Any, Callable, Dict, List, Tuple

import pytest

import xstore
from xstore import neuron, pto, q7
from conftest import ROOT

STORE_U16 = "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)"
REGIONS = [(0x1000, 0x1000, "rw"), (0x2000, 0x400, "r")]


def caught(f: Callable[[], object]) -> BaseException:
    try:
        f()
    except BaseException as e:
        return e
    raise AssertionError("no exception")


def fault_of_execute() -> BaseException:
    m = neuron.Machine(memory=xstore.Memory(REGIONS))
    ok = xstore.asm("neuron", "tensor_store.u8 [0x1000], num_elem=(2,1), imm=(1,2)")
    ro = xstore.asm("neuron", "tensor_store.u8 [0x1ffe], num_elem=(4,1), imm=(3,3,3,3)")
    return caught(lambda: m.execute(ok * 3 + ro, keep_bytes=40))


def effects() -> List[Tuple[str, object]]:
    q = q7.Machine()
    q.regs["a4"] = 0x1003
    q.regs["v1"] = bytes(range(64))
    valign = q.execute("IVP_ZALIGN u0\nIVP_SA2NX8_IP v1, u0, a4\nIVP_SAPOS_FP u0, a4")
    p = pto.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    p.set_shared(5, dtype="U8", capacity=128, cols=16, valid_rows=1, valid_cols=4,
                 published=False)
    pending = p.execute(xstore.asm("pto", "BSTART.TSTORE U8; B.IOS S5, mask=1111; BSTOP"))
    p.set_shared(6, dtype="S8", capacity=128, cols=16, valid_rows=2, valid_cols=3,
                 data=[1, -2, 3, -4, 5, -6], undefined=[2])
    shared, local = p.shared(6), p.shared(5)
    assert shared is not None and local is not None
    n = neuron.Machine()
    truncated = n.execute(xstore.asm("neuron", STORE_U16) * 50, keep_bytes=100)
    assert truncated.truncated and pending.outcome == "pending" and valign.regs
    return [("Effects", valign), ("Effects pending", pending), ("Effects truncated", truncated),
            ("pto.Tile", shared), ("pto.Tile unpublished", local)]


def make_all() -> List[Tuple[str, object]]:
    """One or more of every class that pickles, by a name."""
    b = xstore.asm("neuron", STORE_U16)
    [ex] = xstore.explain("neuron", b)
    [mnemonic] = xstore.explain("q7", "IVP_SAV2NX8_XP")
    v = xstore.validate("neuron", b)
    faulting = xstore.run(ROOT / "examples/q7/unmapped_fault.toml")
    run = xstore.run(ROOT / "examples/neuron/store_u8_imm.toml", dumps=[(0x100, 8)])
    cut = xstore.run(ROOT / "examples/pto/source_local.toml", keep_bytes=600)
    assert faulting.fault is not None and run.expect is not None and cut.truncated
    words = pto.decode(xstore.asm("pto", "BSTART.TSTORE U8; B.IOR a0, a1; "
                                  "B.IOT T#1, mask=1000, last; BSTOP"))
    [bundle] = q7.decode(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
    [textual] = q7.assemble("IVP_ZALIGN u0")
    good = xstore.asm("neuron", "tensor_store.u16 [0x1000], num_elem=(2,1), imm=(1,2)")
    bad = xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)")
    asm_error = caught(lambda: xstore.asm("q7", "IVP_SBN_I v0, a3, 0"))
    bytes_error = caught(lambda: xstore.disasm("neuron", bytes(70)))
    assert isinstance(asm_error, xstore.InputError) and asm_error.rule
    return [
        ("Explanation", ex),
        ("Explanation of a mnemonic", mnemonic),
        ("Field", ex.fields[0]),
        ("Field without a span", mnemonic.fields[0]),
        ("Validation", v),
        ("Check", v.checks[1]),
        ("Finding", xstore.lint(ROOT / "examples/q7/source_s4.toml")[-1]),
        ("Run", run),
        ("Run with a fault", faulting),
        ("Run truncated", cut),
        ("FaultInfo", faulting.fault),
        ("Expect", run.expect),
        ("Verdict", neuron.check(bytearray(good * 3 + bad))),
        *effects(),
        ("neuron.Instruction", neuron.decode(b)[0]),
        ("pto.Instruction", words[0]),
        ("pto.Instruction of 2 bytes", words[-1]),
        ("q7.Instruction", bundle),
        ("q7.Instruction without bytes", textual),
        ("Location", asm_error.location),
        ("InputError", asm_error),
        ("InputError of bytes", bytes_error),
        ("Fault", fault_of_execute()),
        ("Fault of a read", caught(lambda: xstore.Memory(REGIONS).read(0x23ff, 2))),
        ("Error", xstore.Error("something")),
        ("Unit", xstore.Cosim(ROOT / "examples/neuron/store_u8_imm.toml").step()),
    ]


ALL = make_all()
NAMES = [name for name, _ in ALL]


def made(name: str) -> object:
    """The object `name` of make_all(), made in this process."""
    return dict(make_all())[name]


def raise_made(name: str) -> None:
    """Raise the exception `name` of make_all()."""
    e = made(name)
    assert isinstance(e, BaseException)
    raise e


def echo(x: object) -> object:
    return x


def test_every_class_is_covered() -> None:
    classes = {type(obj).__qualname__ if type(obj).__module__ == "xstore" else
               f"{type(obj).__module__.split('.')[-1]}.{type(obj).__qualname__}"
               for _, obj in ALL}
    assert classes >= {
        "Explanation", "Field", "Validation", "Check", "Finding", "Run", "FaultInfo", "Expect",
        "Verdict", "Effects", "neuron.Instruction", "pto.Instruction", "q7.Instruction", "pto.Tile",
        "Unit", "_errors.Location", "_errors.InputError", "_errors.Fault", "_errors.Error",
    }, classes


@pytest.mark.parametrize("name,obj", ALL, ids=NAMES)
def test_pickles_to_an_equal_object(name: str, obj: object) -> None:
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        back = pickle.loads(pickle.dumps(obj, protocol))
        assert type(back) is type(obj)
        assert back == obj and not (back != obj)
        assert hash(back) == hash(obj) if obj.__hash__ is not None else True
    assert made(name) == obj  # made again: equal by value, not by identity


def test_round_trips_keep_what_the_objects_show() -> None:
    objs: Dict[str, Any] = {n: pickle.loads(pickle.dumps(o)) for n, o in ALL}
    made_here: Dict[str, Any] = dict(ALL)
    assert objs["Run truncated"].writes_omitted == made_here["Run truncated"].writes_omitted > 0
    assert objs["Run"].to_dict() == made_here["Run"].to_dict()
    assert objs["Run"].dump == [(0x100, bytes.fromhex("01020304feff1000"))]
    assert objs["Verdict"].details().failed == ["#3:valid_start_addr"]
    f = objs["Fault"]
    assert (f.kind, f.address, f.instruction, str(f)) == (
        "read_only", 0x2000, 3, str(made_here["Fault"]))
    assert f.effects.write_count == 3 and len(f.effects.writes) == 2
    assert objs["InputError"].location.col == 11 and objs["InputError"].hint is None
    assert objs["Effects"].regs["a4"] == 0x1043
    assert objs["q7.Instruction without bytes"].text == "IVP_ZALIGN u0"
    # Different objects stay different.
    assert objs["Run"] != objs["Run with a fault"]
    assert objs["Effects"] != objs["Effects pending"]
    assert objs["InputError"] != objs["InputError of bytes"]
    assert objs["Check"] != objs["Validation"]


def test_a_verdict_pickles_a_copy_of_the_bytes_it_checked() -> None:
    data = bytearray(xstore.asm("neuron", STORE_U16) * 2)
    v = neuron.check(data)
    back = pickle.loads(pickle.dumps(v))
    data[0] = 0  # the original reads the changed buffer; the copy does not
    assert back != v
    assert back.details().valid
    with pytest.raises(xstore.InputError):  # opcode 0 no longer decodes
        v.details()


def test_a_broken_state_is_a_value_error() -> None:
    from xstore._pickle import restore

    good: Dict[str, Any] = dict(ALL)
    for kind, state in [
        ("Field", "{}"), ("Field", 3), ("Run", ("{}", None, [], None)), ("Nope", ""),
        ("Effects", ((b"\x01" * 20, 100, 1, False, 1, 1), "[]", "ok", 0, [])),
        ("Effects", ((b"", 100, 0, False, 0, 0), "[]", "fault", 0, [])),
        ("Verdict", ("mips", 0, [], b"")),
        ("neuron.Instruction", b"\xab"), ("pto.Instruction", b""),
        ("q7.Instruction", "IVP_ZALIGN u0\nIVP_ZALIGN u1"),
        ("q7.Instruction", "nonsense"),
    ]:
        with pytest.raises((ValueError, TypeError)):
            restore(kind, state)
    # A state made by the objects themselves restores.
    fn, args = good["Effects"].__reduce__()
    assert fn(*args) == good["Effects"]


def pool_map(fn: Callable[[Any], object], items: List[Any]) -> List[object]:
    # Separate processes started afresh: nothing is shared but the pickles.
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        # A result that cannot be unpickled would leave get() waiting forever.
        return pool.map_async(fn, items).get(timeout=120)


def test_every_object_crosses_a_process_pool() -> None:
    back = pool_map(made, NAMES)
    assert back == [obj for _, obj in ALL]
    # And back again: objects sent to the workers return equal.
    assert pool_map(echo, back) == back


def test_every_exception_raised_in_a_worker_reaches_the_caller() -> None:
    errors = [(n, o) for n, o in ALL if isinstance(o, BaseException)]
    assert len(errors) == 5
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        for name, want in errors:
            with pytest.raises(type(want)) as ei:
                pool.apply_async(raise_made, (name,)).get(timeout=120)
            assert ei.value == want

"""Memory, the per-ISA modules and machines, the write hook, and fault atomicity."""

from __future__ import annotations

from typing import Any, Dict, List, Tuple

import pytest
from hypothesis import given, settings, strategies as st

import xstore
from xstore import neuron, pto, q7

STORE_U16 = "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)"
PTO_BLOCK = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
REGIONS = [(0x1000, 0x1000, "rw"), (0x2000, 0x400, "r")]


def test_memory_regions_read_write_and_faults() -> None:
    m = xstore.Memory(REGIONS)
    assert m.regions == REGIONS
    assert m.read(0x1000, 4) == bytes(4)
    m.write(0x1ffe, b"\x01\x02")
    m.write(0x2000, bytearray(b"\x03"))  # initialisation may write a read-only region
    assert m.read(0x1ffe, 3) == b"\x01\x02\x03"
    with pytest.raises(xstore.Fault) as ei:
        m.read(0x23ff, 2)
    assert ei.value.kind == "unmapped" and ei.value.address == 0x2400
    assert ei.value.instruction is None
    with pytest.raises(xstore.InputError):
        xstore.Memory([(0, 0x100, "rwx")])
    with pytest.raises(xstore.InputError):
        xstore.Memory([(0, 0x100, "rw"), (0x80, 0x100, "rw")])


def test_neuron_decode_objects() -> None:
    b = xstore.asm("neuron", STORE_U16)
    [i] = neuron.decode(b)
    assert i.text == STORE_U16 == str(i)
    assert i.encode() == b and bytes(i) == b
    assert i.opcode == 0xAB and i.fields["header.opcode"] == "0xab"
    assert i.validate().valid and i.explain().title.startswith("TENSOR_STORE")
    assert i == neuron.decode(memoryview(b))[0]
    with pytest.raises(xstore.InputError):
        neuron.decode(b[:63])


def test_neuron_check_is_one_call_with_details() -> None:
    good = xstore.asm("neuron", STORE_U16)
    bad = xstore.asm("neuron", "tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)")
    v = neuron.check(good * 3 + bad + good)
    assert (v.count, v.invalid, v.valid, len(v)) == (5, [3], False, 5)
    d = v.details()
    assert not d.valid and d.failed == ["#3:valid_start_addr"]
    assert neuron.check(good).valid
    assert neuron.rust_check_rate(good * 100, 1) > 0


def test_each_isa_times_its_check_loop_in_rust() -> None:
    for mod, one in [(neuron, xstore.asm("neuron", STORE_U16)), (pto, xstore.asm("pto", PTO_BLOCK)),
                     (q7, xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))]:
        assert mod.rust_check_rate(one * 100, 2) > 0
        # A stream that does not decode has no rate.
        assert mod.rust_check_rate(one[:-1], 1) == 0


def test_pto_and_q7_decode_and_check() -> None:
    b = xstore.asm("pto", PTO_BLOCK)
    words = pto.decode(b)
    assert [w.text for w in words][0] == "BSTART.TSTORE U8" and words[-1].is_stop
    assert b"".join(w.encode() for w in words) == b
    assert words[0].explain().fields and words[0].fields
    v = pto.check(b + b)
    assert (v.count, v.valid) == (2, True) and v.details().valid
    qb = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64")
    [bundle] = q7.decode(qb)
    assert bundle.text == "IVP_SV2NX8_IP v0, a3, 64" and bundle.encode() == qb
    assert bundle.validate().valid and bundle.explain()
    assert q7.check(qb * 2).count == 2
    [z] = q7.assemble("IVP_ZALIGN u0")
    assert z.text == "IVP_ZALIGN u0"
    with pytest.raises(xstore.InputError):
        z.encode()


def test_check_reports_invalid_blocks_and_bundles_by_index() -> None:
    good = xstore.asm("pto", PTO_BLOCK)
    unclosed = xstore.asm("pto", "BSTART.TSTORE U8; B.IOT T#1, mask=1000; BSTOP")
    v = pto.check(good + unclosed + good)
    assert (v.count, v.invalid) == (3, [1])
    assert v.details().failed == ["Fault_BundleControl: iot_closed_by_l"]
    store = xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64")
    unknown = bytes.fromhex("0f00000000000000")  # a bundle whose encoding is not public
    v = q7.check(store + unknown)
    assert (v.count, v.invalid, v.details().failed) == (2, [1], ["known_encoding"])
    with pytest.raises(xstore.InputError):
        q7.check(store + bytes(8))  # format marker 0: no known length


def test_pto_no_op_tload_and_a_tload_binding_a_source() -> None:
    m = pto.Machine()
    fx = m.execute("BSTART.TSTORE U8; B.IOT T#1, mask=0000, last; BSTOP")
    assert (fx.outcome, fx.executed, fx.warnings) == ("ok", 1, ["PE mask 0000, no effect"])
    # A TLOAD binds a destination: a source B.IOT in one breaks binding_role.
    with pytest.raises(xstore.Fault) as ei:
        m.execute("BSTART.TLOAD U8; B.IOT T#1, mask=1000, last; BSTOP")
    assert ei.value.kind == "TileLegality" and "[binding_role]" in str(ei.value)
    # PE0 loads a 2 x 4 U8 tile into T#1 and stores it back densely elsewhere.
    m.memory.write(0x100, bytes(range(1, 9)))
    for name, v in (("pe0.a0", 0x100), ("pe0.a1", 4), ("pe0.a2", 0x400), ("pe0.a3", 4)):
        m.set_reg(name, v)
    fx = m.execute(
        "BSTART.TLOAD U8; C.B.DIMI 4, ->LB0; C.B.DIMI 2, ->LB1; B.IOR a0, a1; "
        "B.IOT mask=1000, last, ->T<1>; BSTOP; "
        "BSTART.TSTORE U8; B.IOR a2, a3; B.IOT T#1, mask=1000, last; BSTOP"
    )
    assert (fx.outcome, fx.executed, fx.writes) == ("ok", 2, [(0x400, bytes(range(1, 9)))])


def test_neuron_machine_profile_regs_and_shared_memory() -> None:
    m = neuron.Machine()
    assert m.memory.regions[0][0] == 0
    fx = m.execute(xstore.asm("neuron", STORE_U16))
    assert fx.outcome == "ok" and fx.executed == 1 and fx.regs == {}
    assert fx.writes == [(0x1000, bytes.fromhex("0100020003000400")),
                         (0x1010, bytes.fromhex("0500060007000800"))]
    assert m.memory.read(0x1000, 8) == bytes.fromhex("0100020003000400")
    assert len(m.regs) == 64 and list(m.regs)[0] == "r0" and m.reg_names()[63] == "r63"
    m.regs["r4"] = 0xDEADBEEF
    assert m.regs["r4"] == 0xDEADBEEF and m.reg("r4") == 0xDEADBEEF and "r4" in m.regs
    assert m.regs.get("x9") is None and "x9" not in m.regs
    with pytest.raises(KeyError):
        m.regs["x9"]
    with pytest.raises(xstore.InputError):
        m.regs["r4"] = 1 << 40
    shared = xstore.Memory(REGIONS)
    a, b = neuron.Machine(memory=shared), neuron.Machine(memory=shared)
    a.execute(xstore.asm("neuron", STORE_U16))
    assert b.memory.read(0x1000, 2) == b"\x01\x00" and shared.read(0x1010, 2) == b"\x05\x00"
    with pytest.raises(ValueError):
        neuron.Machine(profile="nc-v2", memory=shared)
    with pytest.raises(xstore.InputError) as e:
        neuron.Machine(profile="nope")
    assert str(e.value) == (
        "<input>: error: unknown profile `nope` for isa `neuron`; "
        "expected one of: nc-v2, nc-v3, nc-v4, nc-v5"
    )
    # A text program is assembled.
    assert neuron.Machine().execute(STORE_U16).executed == 1


def test_neuron_load_changes_registers() -> None:
    m = neuron.Machine(memory=xstore.Memory(REGIONS))
    m.memory.write(0x1000, bytes([9, 0, 0, 0]))
    fx = m.execute("tensor_load.u32 [0x1000], num_elem=(1,1), reg=(r5)")
    assert fx.regs == {"r5": 9} and m.regs["r5"] == 9 and fx.writes == []


def test_fault_raises_with_effects_of_the_completed_instructions() -> None:
    mem = xstore.Memory(REGIONS)
    m = neuron.Machine(memory=mem)
    ok = xstore.asm("neuron", "tensor_store.u8 [0x1000], num_elem=(2,1), imm=(1,2)")
    ro = xstore.asm("neuron", "tensor_store.u8 [0x1ffe], num_elem=(4,1), imm=(3,3,3,3)")
    with pytest.raises(xstore.Fault) as ei:
        m.execute(ok + ro + ok)
    f = ei.value
    assert (f.kind, f.address, f.instruction) == ("read_only", 0x2000, 1)
    assert f.message and str(f).startswith("instruction 1: read_only at 0x2000: ")
    assert f.effects.executed == 1 and f.effects.writes == [(0x1000, b"\x01\x02")]
    assert mem.read(0x1ffe, 2) == b"\x00\x00"


def test_hook_sees_each_committed_write_in_order_and_nothing_of_a_fault() -> None:
    mem = xstore.Memory(REGIONS)
    seen: List[Tuple[int, bytes, bytes]] = []
    # The hook runs after the commit: memory already holds the bytes.
    h = mem.on_write(lambda addr, data: seen.append((addr, data, mem.read(addr, len(data)))))
    m = neuron.Machine(memory=mem)
    fx = m.execute(xstore.asm("neuron", STORE_U16))
    assert [(a, d) for a, d, _ in seen] == fx.writes
    assert all(d == now for _, d, now in seen)
    seen.clear()
    ro = xstore.asm("neuron", "tensor_store.u8 [0x1ffe], num_elem=(4,1), imm=(3,3,3,3)")
    ok = xstore.asm("neuron", "tensor_store.u8 [0x1100], num_elem=(1,1), imm=(5)")
    with pytest.raises(xstore.Fault):
        m.execute(ok + ro)
    assert [(a, d) for a, d, _ in seen] == [(0x1100, b"\x05")]
    mem.remove_hook(h)
    seen.clear()
    m.execute(ok)
    assert seen == []
    with pytest.raises(xstore.InputError):
        mem.remove_hook(h)


def test_hook_may_read_the_machine_and_its_exception_stops_the_run() -> None:
    mem = xstore.Memory(REGIONS)
    m = q7.Machine(memory=mem)
    m.regs["a3"] = 0x1000
    a3: List[object] = []
    mem.on_write(lambda addr, data: a3.append(m.regs["a3"]))
    m.execute(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * 2)
    assert a3 == [0x1040, 0x1080]

    def boom(addr: int, data: bytes) -> None:
        raise RuntimeError("stop")

    mem.on_write(boom)
    with pytest.raises(RuntimeError):
        m.execute(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64") * 2)
    assert m.regs["a3"] == 0x10C0  # the first store completed, the second never ran


def test_pto_machine_tiles_and_pending() -> None:
    np = pytest.importorskip("numpy")
    m = pto.Machine(memory=xstore.Memory([(0, 0x1000, "rw")]))
    m.regs["pe0.a0"] = 0x100
    m.regs["pe0.a1"] = 16
    m.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=2, valid_cols=3,
               data=np.arange(1, 7, dtype=np.uint8).reshape(2, 3))
    fx = m.execute(xstore.asm("pto", PTO_BLOCK))
    assert fx.writes == [(0x100, b"\x01\x02\x03"), (0x110, b"\x04\x05\x06")]
    m.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=1, valid_cols=2,
               data=b"\x07\x08")
    m.execute(xstore.asm("pto", PTO_BLOCK))
    m.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=1, valid_cols=2,
               data=[9, 10])
    m.execute(xstore.asm("pto", PTO_BLOCK))
    assert m.memory.read(0x100, 3) == b"\x09\x0a\x03"
    with pytest.raises(xstore.InputError) as ei:
        m.set_tile(0, "T#1", dtype="U9", capacity=128, cols=8, valid_rows=1, valid_cols=1)
    assert "U9" in str(ei.value)
    m.set_shared(2, dtype="U8", capacity=128, cols=8, valid_rows=1, valid_cols=1, published=False)
    pend = xstore.asm("pto", "BSTART.TSTORE U8; B.IOS S2, mask=1111; BSTOP")
    fx = m.execute(pend)
    assert fx.outcome == "pending" and fx.writes == [] and "pending" in fx.warnings[-1]


def test_q7_valign_stream_and_misaligned_policy() -> None:
    m = q7.Machine()
    m.regs["a4"] = 0x1003
    m.regs["v1"] = bytes(range(64))
    fx = m.execute("IVP_ZALIGN u0\nIVP_SA2NX8_IP v1, u0, a4\nIVP_SAPOS_FP u0, a4")
    assert [(a, len(d)) for a, d in fx.writes] == [(0x1003, 61), (0x1040, 3)]
    assert fx.regs["a4"] == 0x1043 and m.memory.read(0x1003, 64) == bytes(range(64))
    assert m.misaligned == "round_down"
    m.misaligned = "fault"
    m.regs["a3"] = 0x1001
    with pytest.raises(xstore.Fault) as ei:
        m.execute(xstore.asm("q7", "IVP_SV2NX8_IP v0, a3, 64"))
    assert ei.value.kind == "misaligned"
    with pytest.raises(xstore.InputError):
        m.misaligned = "sideways"


# Fault atomicity on random programs: the state after a fault at instruction
# i equals the state of a fresh machine that ran the first i instructions,
# and the hook saw exactly the writes of those i.

ADDRS = st.integers(min_value=0xF80, max_value=0x2480)
# Mostly inside the read-write region, so that faults also come after completed instructions.
RW = st.integers(0x1000, 0x1F00)
MOSTLY_RW = st.one_of(RW, RW, ADDRS)
# PTO's U16 elements need even addresses: its good bases are even, and the odd, read-only and
# unmapped ones come from ADDRS, so that faults after completed blocks are common too.
EVEN_RW = RW.map(lambda a: a & ~1)
# Q7 vector stores need 64-byte alignment under misaligned = "fault": mostly aligned bases.
ALIGNED = st.integers(min_value=0x1000 // 64, max_value=0x2480 // 64).map(lambda k: k * 64)


def snapshot(m: Any) -> Tuple[bytes, bytes, Dict[str, Any]]:
    mem = m.memory
    return mem.read(0x1000, 0x1000), mem.read(0x2000, 0x400), dict(m.regs.items())


REACHED: Dict[str, Dict[str, int]] = {}


def reached(isa: str, i: int) -> None:
    """Count what a property's example did: a clean run, a fault at the first
    instruction, or a fault after completed ones."""
    key = "clean" if i < 0 else "first" if i == 0 else "later"
    counts = REACHED.setdefault(isa, {})
    counts[key] = counts.get(key, 0) + 1


def check_atomic(make: Any, units: List[Any], join: Any) -> int:
    """Run `units` whole, then the prefix before any fault; returns the fault index or -1."""
    a = make()
    seen: List[Tuple[int, bytes]] = []
    a.memory.on_write(lambda addr, data: seen.append((addr, data)))
    try:
        fx = a.execute(join(units))
        assert seen == fx.writes
        return -1
    except xstore.Fault as f:
        assert f.instruction is not None
        i = f.instruction
        b = make()
        if i:
            b.execute(join(units[:i]))
        before = snapshot(b)
        assert snapshot(a) == before
        assert seen == f.effects.writes
        with pytest.raises(xstore.Fault):
            b.execute(join(units[i:i + 1]))
        assert snapshot(b) == before
        return i


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(MOSTLY_RW, st.integers(1, 8), st.sampled_from(["u8", "u16", "u32"])),
                min_size=1, max_size=6))
def prop_neuron_fault_leaves_state_as_before(prog: List[Tuple[int, int, str]]) -> None:
    def make() -> Any:
        m = neuron.Machine(memory=xstore.Memory(REGIONS))
        m.memory.write(0x1000, bytes(range(256)) * 16)
        return m

    units = [xstore.asm("neuron", f"tensor_store.{t} [{a:#x}], num_elem=({n},1), "
                        f"imm=({','.join(str(k + 1) for k in range(n))})")
             for a, n, t in prog]
    reached("neuron", check_atomic(make, units, b"".join))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3)), min_size=2, max_size=6),
       st.lists(st.one_of(EVEN_RW, EVEN_RW, ADDRS), min_size=4, max_size=4))
def prop_pto_fault_leaves_state_as_before(prog: List[Tuple[int, int]], bases: List[int]) -> None:
    def make() -> Any:
        m = pto.Machine(memory=xstore.Memory(REGIONS))
        for k, base in enumerate(bases):
            m.regs[f"pe0.a{k}"] = base
        m.regs["pe0.a4"] = 16
        m.set_tile(0, "T#1", dtype="U16", capacity=128, cols=8, valid_rows=3, valid_cols=3,
                   data=list(range(1, 10)))
        return m

    units = [xstore.asm("pto", f"BSTART.TSTORE U16; B.DIM LB0, {rows}; B.IOR a{k}, a4; "
                        "B.IOT T#1, mask=1000, last; BSTOP") for k, rows in prog]
    reached("pto", check_atomic(make, units, b"".join))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(3, 6), min_size=2, max_size=6),
       st.lists(st.one_of(ALIGNED, ALIGNED, ADDRS), min_size=4, max_size=4))
def prop_q7_fault_leaves_state_as_before(prog: List[int], bases: List[int]) -> None:
    def make() -> Any:
        m = q7.Machine(memory=xstore.Memory(REGIONS))
        m.misaligned = "fault"
        for k, base in enumerate(bases):
            m.regs[f"a{k + 3}"] = base
        m.regs["v0"] = bytes(range(64))
        return m

    units = [f"IVP_SV2NX8_IP v0, a{r}, 64\n" for r in prog]
    reached("q7", check_atomic(make, units, "".join))


def assert_reached(isa: str, prop: Any) -> None:
    """Run a property's examples, then check they reached clean runs, faults at
    the first instruction and faults after completed ones."""
    REACHED.pop(isa, None)
    prop()
    counts = REACHED.get(isa, {})
    for key in ("clean", "first", "later"):
        assert counts.get(key, 0) >= 5, (isa, counts)


def test_neuron_fault_leaves_memory_and_registers_as_before() -> None:
    assert_reached("neuron", prop_neuron_fault_leaves_state_as_before)


def test_pto_fault_leaves_memory_and_registers_as_before() -> None:
    assert_reached("pto", prop_pto_fault_leaves_state_as_before)


def test_q7_fault_leaves_memory_and_registers_as_before() -> None:
    assert_reached("q7", prop_q7_fault_leaves_state_as_before)

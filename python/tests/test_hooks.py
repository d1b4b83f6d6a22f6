"""Hooks and run control: `Memory.on_read` / `on_write` with address ranges,
`Machine.on_step`, `remove_hook`, `execute(begin=, count=, until=)` and
`Effects.stop`, `Memory.map` / `unmap` / `protect`, and hooks that raise."""

from __future__ import annotations

import pickle
from typing import Any, Callable, List, Optional, Tuple

import pytest

import xstore
from xstore import neuron, pto, q7


def store(addr: int, *data: int) -> str:
    imm = ",".join(str(d) for d in data)
    return f"tensor_store.u8 [{addr:#x}], num_elem=({len(data)},1), imm=({imm})"


def flat() -> xstore.Memory:
    return xstore.Memory([(0, 0x1000, "rw")])


# ---- address ranges of the memory's hooks ----


def test_a_write_hook_fires_for_a_write_with_a_byte_in_its_inclusive_range() -> None:
    m = neuron.Machine(memory=flat())
    hits: List[Tuple[str, int, bytes]] = []
    ranges: List[Tuple[str, Optional[int], Optional[int]]] = [
        ("both", 0x103, 0x106), ("begin", 0x106, None), ("end", None, 0x103),
        ("none", None, None), ("one", 0x105, 0x105)]
    for name, begin, end in ranges:
        def hook(a: int, d: bytes, n: str = name) -> None:
            hits.append((n, a, d))
        m.memory.on_write(hook, begin=begin, end=end)
    # Writes [0x100, 0x102], [0x103, 0x104], [0x105], [0x106, 0x107], [0x108].
    prog = "\n".join([store(0x100, 1, 2, 3), store(0x103, 4, 5), store(0x105, 6),
                      store(0x106, 7, 8), store(0x108, 9)])
    m.execute(prog)
    by = {n: [a for k, a, _ in hits if k == n] for n in ("both", "begin", "end", "none", "one")}
    assert by["both"] == [0x103, 0x105, 0x106]       # 0x102 and 0x107 are outside
    assert by["begin"] == [0x106, 0x108]
    assert by["end"] == [0x100, 0x103]
    assert by["none"] == [0x100, 0x103, 0x105, 0x106, 0x108]
    assert by["one"] == [0x105]
    assert (0x103, b"\x04\x05") in [(a, d) for _, a, d in hits]


def test_a_range_whose_begin_passes_its_end_is_an_input_error() -> None:
    mem = flat()
    with pytest.raises(xstore.InputError) as ei:
        mem.on_write(lambda a, d: None, begin=0x10, end=0xF)
    assert ei.value.rule == "hook_range" and "0x10" in str(ei.value)
    with pytest.raises(xstore.InputError):
        mem.on_read(lambda a, d: None, begin=2, end=1)
    with pytest.raises(xstore.InputError):
        neuron.Machine().on_step(lambda u, fx: None, begin=2, end=1)
    mem.on_write(lambda a, d: None, begin=5, end=5)  # one byte is a range


def test_a_read_hook_sees_what_a_neuron_load_read_in_its_range() -> None:
    mem = flat()
    mem.write(0x100, bytes(range(1, 33)))
    m = neuron.Machine(memory=mem)
    seen: List[Tuple[int, bytes]] = []
    ranged: List[int] = []
    mem.on_read(lambda a, d: seen.append((a, d)))
    mem.on_read(lambda a, d: ranged.append(a), begin=0x111, end=0x111)
    written: List[int] = []
    mem.on_write(lambda a, d: written.append(a))
    # Two rows of two u16 elements, the rows 16 bytes apart: one read a row.
    fx = m.execute("tensor_load.u16 [0x100], num_elem=(2,2), step_elem=(1,8), reg=(r1,r2,r3,r4)")
    assert seen == [(0x100, b"\x01\x02\x03\x04"), (0x110, b"\x11\x12\x13\x14")]
    assert ranged == [0x110]
    assert written == [] and fx.writes == [] and m.regs["r3"] == 0x1211
    # A store reads nothing.
    seen.clear()
    m.execute(store(0x100, 1))
    assert seen == []


def test_no_read_hook_fires_for_a_load_that_faults() -> None:
    m = neuron.Machine(memory=xstore.Memory([(0, 0x200, "rw")]))
    seen: List[int] = []
    m.memory.on_read(lambda a, d: seen.append(a))
    ok = "tensor_load.u8 [0x10], num_elem=(1,1), reg=(r1)"
    # The first element is readable, the second is not: the load reads nothing.
    bad = "tensor_load.u8 [0x1ff], num_elem=(2,1), reg=(r1,r2)"
    with pytest.raises(xstore.Fault) as ei:
        m.execute(ok + "\n" + bad)
    assert ei.value.instruction == 1 and ei.value.address == 0x200
    assert seen == [0x10]


def test_a_read_hook_sees_a_pto_tload_row_by_row_and_nothing_of_a_faulting_one() -> None:
    m = pto.Machine(memory=xstore.Memory([(0, 0x10C, "rw")]))
    m.memory.write(0x100, bytes(range(1, 13)))
    m.regs["pe0.a0"] = 0x100
    m.regs["pe0.a1"] = 8                    # rows 8 bytes apart
    seen: List[Tuple[int, bytes]] = []
    m.memory.on_read(lambda a, d: seen.append((a, d)))
    tload = ("BSTART.TLOAD U8; C.B.DIMI 4, ->LB0; C.B.DIMI 2, ->LB1; B.IOR a0, a1; "
             "B.IOT mask=1000, last, ->T<1>; BSTOP")
    m.execute(tload)
    assert seen == [(0x100, b"\x01\x02\x03\x04"), (0x108, b"\x09\x0a\x0b\x0c")]
    seen.clear()
    m.regs["pe0.a0"] = 0x104
    with pytest.raises(xstore.Fault) as ei:     # the first row is mapped, the second is not
        m.execute(tload)
    assert ei.value.kind == "DataPage" and seen == []


# ---- handles ----


def test_remove_hook_removes_either_kind_and_refuses_other_handles() -> None:
    m = neuron.Machine(memory=flat())
    m.memory.write(0x100, b"\x07")
    log: List[str] = []
    r = m.memory.on_read(lambda a, d: log.append("read"))
    w = m.memory.on_write(lambda a, d: log.append("write"))
    s = m.on_step(lambda u, fx: log.append("step"))
    assert len({r, w, s}) == 3
    prog = store(0x101, 1) + "\ntensor_load.u8 [0x100], num_elem=(1,1), reg=(r1)"
    m.execute(prog)
    assert log == ["write", "step", "read", "step"]
    m.memory.remove_hook(r)
    log.clear()
    m.execute(prog)
    assert log == ["write", "step", "step"]
    m.memory.remove_hook(w)
    m.remove_hook(s)
    log.clear()
    m.execute(prog)
    assert log == []
    for bad in (r, w, 12345678):
        with pytest.raises(xstore.InputError) as ei:
            m.memory.remove_hook(bad)
        assert ei.value.rule == "hook_handle" and str(bad) in str(ei.value)
    # A memory's handle is not a machine's, nor the other way round.
    h = m.memory.on_write(lambda a, d: None)
    with pytest.raises(xstore.InputError):
        m.remove_hook(h)
    s = m.on_step(lambda u, fx: None)
    with pytest.raises(xstore.InputError):
        m.memory.remove_hook(s)
    with pytest.raises(xstore.InputError):
        m.remove_hook(s + 1000)


# ---- on_step ----


def test_on_step_sees_each_completed_unit_with_its_effects_in_its_range() -> None:
    m = neuron.Machine(memory=flat())
    m.regs["r5"] = 0x0302
    seen: List[Tuple[str, Any, Any, int]] = []
    m.on_step(lambda u, fx: seen.append((u.text, fx.writes, fx.regs, fx.executed)))
    edges: List[int] = []
    prog = [store(0x100, 1), "tensor_load.u8 [0x100], num_elem=(1,1), reg=(r9)",
            store(0x102, 2, 3), store(0x104, 4)]
    # Units 1 and 2 of 0..3: both ends of the range are in it.
    m.on_step(lambda u, fx: edges.append(fx.writes[0][0] if fx.writes else -1), begin=1, end=2)
    fx = m.execute("\n".join(prog))
    assert [t for t, *_ in seen] == prog
    assert seen[0][1:] == ([(0x100, b"\x01")], {}, 1)
    assert seen[1][1:] == ([], {"r9": 1}, 1)
    assert seen[2][1] == [(0x102, b"\x02\x03")]
    assert edges == [-1, 0x102]
    assert fx.executed == 4 and fx.writes == [w for _, ws, _, _ in seen for w in ws]


def test_on_step_is_not_called_for_a_unit_that_faults() -> None:
    m = neuron.Machine(memory=xstore.Memory([(0, 0x100, "rw")]))
    seen: List[int] = []
    m.on_step(lambda u, fx: seen.append(len(seen)))
    writes: List[int] = []
    m.memory.on_write(lambda a, d: writes.append(a))
    with pytest.raises(xstore.Fault) as ei:
        m.execute("\n".join([store(0x10, 1), store(0xFF, 2, 2), store(0x20, 3)]))
    assert ei.value.instruction == 1 and seen == [0] and writes == [0x10]
    assert ei.value.effects.stop == "fault"


def test_on_step_gives_a_pto_block_as_its_words_and_a_q7_bundle() -> None:
    m = pto.Machine(memory=flat())
    m.regs["pe0.a0"] = 0x100
    m.regs["pe0.a1"] = 16
    m.set_tile(0, "T#1", dtype="U8", capacity=128, cols=8, valid_rows=1, valid_cols=2, data=[1, 2])
    blocks: List[Tuple[pto.Instruction, ...]] = []
    m.on_step(lambda u, fx: blocks.append(u))
    block = "BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP"
    m.execute(block + "\n" + block)
    assert len(blocks) == 2 and all(isinstance(w, pto.Instruction) for w in blocks[0])
    assert [w.text for w in blocks[1]] == block.split("; ")

    q = q7.Machine()
    q.regs["a3"] = 0x1000
    bundles: List[Tuple[str, object]] = []
    q.on_step(lambda u, fx: bundles.append((u.text, fx.regs["a3"])))
    q.execute("IVP_SV2NX8_IP v0, a3, 64\nIVP_SV2NX8_IP v0, a3, 64")
    assert bundles == [("IVP_SV2NX8_IP v0, a3, 64", 0x1040), ("IVP_SV2NX8_IP v0, a3, 64", 0x1080)]


def test_hooks_of_one_unit_run_reads_then_writes_then_step() -> None:
    m = pto.Machine(memory=flat())
    m.regs["pe0.a0"] = 0x100
    m.regs["pe0.a1"] = 4
    order: List[str] = []
    m.on_step(lambda u, fx: order.append("step"))
    m.memory.on_write(lambda a, d: order.append("write"))
    m.memory.on_read(lambda a, d: order.append("read"))
    m.execute("BSTART.TLOAD U8; C.B.DIMI 4, ->LB0; C.B.DIMI 1, ->LB1; B.IOR a0, a1; "
              "B.IOT mask=1000, last, ->T<1>; BSTOP")
    assert order == ["read", "step"]


# ---- count, until, begin ----

PROG = xstore.asm("neuron", "\n".join(store(0x100 + i, i + 1) for i in range(5)))


def written(m: neuron.Machine) -> bytes:
    return m.memory.read(0x100, 5)


def test_count_runs_exactly_that_many_units() -> None:
    for hooked in (False, True):
        for n, stop in [(0, "count"), (1, "count"), (4, "count"), (5, "end"), (9, "end")]:
            m = neuron.Machine()
            if hooked:
                m.on_step(lambda u, fx: None)
            fx = m.execute(PROG, count=n)
            assert (fx.executed, fx.stop, len(fx.writes)) == (min(n, 5), stop, min(n, 5))
            assert written(m) == bytes(range(1, min(n, 5) + 1)).ljust(5, b"\0")


def test_until_stops_before_that_unit_and_begin_starts_at_one() -> None:
    for hooked in (False, True):
        m = neuron.Machine()
        if hooked:
            m.memory.on_write(lambda a, d: None)
        fx = m.execute(PROG, until=3)
        assert (fx.executed, fx.stop, written(m)) == (3, "until", b"\x01\x02\x03\0\0")
        fx = m.execute(PROG, begin=3, count=1)
        assert (fx.executed, fx.stop, written(m)) == (1, "count", b"\x01\x02\x03\x04\0")
        fx = m.execute(PROG, begin=4)
        assert (fx.executed, fx.stop, written(m)) == (1, "end", bytes(range(1, 6)))
        assert m.execute(PROG, until=0).executed == 0
        assert m.execute(PROG, begin=2, until=1).stop == "end"   # never reached
        assert m.execute(PROG, begin=5).stop == "end"
        both = m.execute(PROG, count=2, until=1)
        assert (both.executed, both.stop) == (1, "until")
    with pytest.raises(xstore.InputError):
        neuron.Machine().execute(PROG, begin=6)
    with pytest.raises(TypeError):
        neuron.Machine().execute(PROG, until="3")  # type: ignore[arg-type]


def test_an_until_predicate_sees_each_unit_before_it_runs() -> None:
    m = neuron.Machine()
    asked: List[int] = []

    def before(i: neuron.Instruction) -> bool:
        asked.append(m.memory.read(0x100, 5).count(0))  # what had run when it was asked
        return i.text == store(0x102, 3)

    fx = m.execute(PROG, until=before)
    assert (fx.executed, fx.stop, asked) == (2, "until", [5, 4, 3])
    assert written(m) == b"\x01\x02\0\0\0"
    q = q7.Machine()
    q.regs["a3"] = 0x1000
    fx = q.execute("IVP_SV2NX8_IP v0, a3, 64\n" * 3, until=lambda b: q.reg("a3") == 0x1080)
    assert (fx.executed, fx.stop, q.regs["a3"]) == (2, "until", 0x1080)
    blocks: List[int] = []

    def count_words(b: Tuple[pto.Instruction, ...]) -> bool:
        blocks.append(len(b))
        return False

    p = pto.Machine()
    p.execute("BSTART.TSTORE U8; B.IOT T#1, mask=0000, last; BSTOP\n" * 2, until=count_words)
    assert blocks == [3, 3]


def test_a_pending_block_and_a_fault_say_so() -> None:
    m = pto.Machine()
    m.set_shared(5, dtype="U8", capacity=128, cols=16, valid_rows=1, valid_cols=4, published=False)
    fx = m.execute("BSTART.TSTORE U8; B.IOS S5, mask=1111; BSTOP", count=3)
    assert (fx.outcome, fx.stop) == ("pending", "pending")
    n = neuron.Machine(memory=xstore.Memory([(0x100, 0x4, "rw")]))
    with pytest.raises(xstore.Fault) as ei:
        n.execute(PROG, count=5)
    assert ei.value.effects.stop == "fault" and ei.value.effects.executed == 4


def test_effects_keep_their_stop_through_pickle_and_to_dict() -> None:
    fx = neuron.Machine().execute(PROG, count=2)
    back = pickle.loads(pickle.dumps(fx))
    assert back == fx and back.stop == "count"
    assert fx.to_dict()["stop"] == "count"
    assert neuron.Machine().execute(PROG[:128]) != fx  # same writes, stopped at the end
    assert "stop='count'" in repr(fx) or 'stop="count"' in repr(fx)


# ---- exceptions in hooks ----


def test_an_exception_in_a_hook_propagates_with_the_units_before_it_committed() -> None:
    class Stop(Exception):
        pass

    def on_third(u: neuron.Instruction, fx: xstore.Effects) -> None:
        if fx.writes[0][0] == 0x102:
            raise Stop

    m = neuron.Machine()
    m.on_step(on_third)
    with pytest.raises(Stop):
        m.execute(PROG)
    assert written(m) == b"\x01\x02\x03\0\0"   # the unit whose hook raised is committed

    def until(u: neuron.Instruction) -> bool:
        if u.text == store(0x101, 2):
            raise Stop
        return False

    m = neuron.Machine()
    with pytest.raises(Stop):
        m.execute(PROG, until=until)
    assert written(m) == b"\x01\0\0\0\0"       # the predicate raised before unit 1 ran

    m = neuron.Machine()
    m.memory.write(0x100, b"\x09")

    def bad_read(a: int, d: bytes) -> None:
        raise Stop

    m.memory.on_read(bad_read)
    with pytest.raises(Stop):
        m.execute("tensor_load.u8 [0x100], num_elem=(1,1), reg=(r1)\n"
                  "tensor_load.u8 [0x100], num_elem=(1,1), reg=(r2)")
    assert (m.regs["r1"], m.regs["r2"]) == (9, 0)


# ---- map, unmap, protect ----


def test_map_follows_the_region_rules_and_names_the_conflict() -> None:
    mem = xstore.Memory([(0x1000, 0x1000, "rw")])
    mem.map(0x3000, 0x10, "r")
    mem.map(0x2000, 1, "rw")                 # adjacent, byte-granular: any alignment
    assert mem.regions == [(0x1000, 0x1000, "rw"), (0x2000, 1, "rw"), (0x3000, 0x10, "r")]
    cases = [((0x1FFF, 2, "rw"), "regions_disjoint", "region0"),
             ((0x300F, 1, "r"), "regions_disjoint", "region1"),
             ((0x5000, 0, "rw"), "region_size_nonzero", "size 0"),
             ((2**64 - 1, 2, "rw"), "region_within_space", "passes the top")]
    for args, rule, text in cases:
        with pytest.raises(xstore.InputError) as ei:
            mem.map(*args)
        assert ei.value.rule == rule and text in str(ei.value), str(ei.value)
    with pytest.raises(xstore.InputError) as ei:
        mem.map(0x6000, 1, "x")
    assert "rw" in str(ei.value)
    assert len(mem.regions) == 3
    # The constructor names the same rules.
    with pytest.raises(xstore.InputError) as ei:
        xstore.Memory([(0, 0x100, "rw"), (0x80, 0x100, "rw")])
    assert ei.value.rule == "regions_disjoint"


def test_a_machine_runs_on_the_regions_mapped_unmapped_and_protected_later() -> None:
    m = neuron.Machine(memory=xstore.Memory([(0, 0x100, "rw")]))
    with pytest.raises(xstore.Fault):
        m.execute(store(0x200, 1))
    m.memory.map(0x200, 0x10, "rw")
    m.execute(store(0x200, 1, 2))
    assert m.memory.read(0x200, 2) == b"\x01\x02"
    m.memory.protect(0x201, 1, "r")
    assert m.memory.regions == [(0, 0x100, "rw"), (0x200, 1, "rw"), (0x201, 1, "r"), (0x202, 0xE, "rw")]
    with pytest.raises(xstore.Fault) as ei:
        m.execute(store(0x200, 7, 7))
    assert (ei.value.kind, ei.value.address, m.memory.read(0x200, 2)) == ("read_only", 0x201, b"\x01\x02")
    m.memory.protect(0x200, 0x10, "rw")
    m.execute(store(0x200, 7, 7))
    m.memory.unmap(0x200, 0x10)
    with pytest.raises(xstore.Fault) as ei:
        m.execute(store(0x200, 1))
    assert ei.value.kind == "unmapped"
    m.memory.map(0x200, 0x10, "rw")           # mapped again: new bytes
    assert m.memory.read(0x200, 2) == b"\0\0"


def test_unmap_and_protect_need_every_byte_mapped_and_change_nothing_otherwise() -> None:
    mem = xstore.Memory([(0x1000, 0x100, "rw"), (0x1100, 0x100, "r")])
    mem.write(0x10FF, b"\x05\x06")
    before = mem.regions
    calls: List[Callable[[], None]] = [lambda: mem.unmap(0x1180, 0x100),
                                       lambda: mem.protect(0x1180, 0x100, "rw")]
    for call in calls:
        with pytest.raises(xstore.InputError) as ei:
            call()
        assert ei.value.rule == "range_mapped" and "0x1200" in str(ei.value)
    with pytest.raises(xstore.InputError) as ei:
        mem.unmap(0x1000, 0)
    assert ei.value.rule == "region_size_nonzero"
    with pytest.raises(xstore.InputError):
        mem.protect(0x1000, 1, "w")
    assert mem.regions == before
    mem.unmap(0x10F0, 0x20)                   # across two regions
    assert mem.regions == [(0x1000, 0xF0, "rw"), (0x1110, 0xF0, "r")]
    with pytest.raises(xstore.Fault):
        mem.read(0x10FF, 1)


def test_unit_indices_are_the_programs_whatever_begin_and_a_fault_names_its_own() -> None:
    m = neuron.Machine(memory=xstore.Memory([(0x100, 0x4, "rw")]))
    at: List[bytes] = []
    m.on_step(lambda u, fx: at.append(fx.writes[0][1]), begin=3, end=3)
    fx = m.execute(PROG, begin=2, count=2)
    assert (fx.executed, fx.stop, at) == (2, "count", [b"\x04"])
    with pytest.raises(xstore.Fault) as ei:
        m.execute(PROG, begin=3)
    assert ei.value.instruction == 4 and ei.value.effects.executed == 1 and at == [b"\x04"] * 2

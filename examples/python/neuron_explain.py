"""Decode a stream of Neuron instructions, validate it in one call, and explain
the instruction that fails."""

from __future__ import annotations

import xstore
from xstore import neuron

text = """
tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)
tensor_store.u32 [0x1002], num_elem=(1,1), imm=(7)
"""
stream = xstore.asm("neuron", text)
print(f"{len(stream)} bytes")

for inst in neuron.decode(stream):
    print(inst.text)

verdict = neuron.check(stream)
print(f"{verdict.count} instructions, invalid: {verdict.invalid}")
print("failed:", verdict.details().failed)

bad = neuron.decode(stream)[verdict.invalid[0]]
ex = bad.explain()
print(ex.title)
for f in ex.fields:
    if f.name == "start_addr":
        print(f"  {f.name}: {f.bits}, {f.raw}: {f.meaning} ({f.provenance})")
assert verdict.invalid == [1]

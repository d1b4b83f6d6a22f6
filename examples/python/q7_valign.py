"""Drive the Vision-Q7 valign unaligned-store stream: 70 bytes from 0x1003
through u0, flushed at the end; check the bytes written and that nothing
outside the span changed."""

from __future__ import annotations

import xstore
from xstore import q7

mem = xstore.Memory([(0x1000, 0x1000, "rw")])
mem.write(0x1000, b"\xee" * 0x100)
seen: list[tuple[int, bytes]] = []
mem.on_write(lambda addr, data: seen.append((addr, bytes(data))))

m = q7.Machine(memory=mem)
m.regs["a4"] = 0x1003   # stream pointer
m.regs["a5"] = 6        # bytes of the variable-length store
m.regs["v1"] = bytes(range(64))
m.regs["v2"] = bytes(range(64, 128))

fx = m.execute("""
IVP_ZALIGN u0
IVP_SA2NX8_IP v1, u0, a4
IVP_SAV2NX8_XP v2, u0, a4, a5
IVP_SAPOS_FP u0, a4
""")
for addr, data in fx.writes:
    print(f"write {addr:#x}: {len(data)} bytes")
a4 = m.regs["a4"]
assert isinstance(a4, int)  # an address register; vec registers read as bytes
print(f"a4 = {a4:#x}")

want = bytes(range(70))
assert mem.read(0x1003, 70) == want
assert mem.read(0x1000, 3) == b"\xee" * 3 and mem.read(0x1003 + 70, 4) == b"\xee" * 4
assert seen == fx.writes and m.regs["a4"] == 0x1003 + 70
print("the stream wrote bytes 0..69 at 0x1003, nothing else")

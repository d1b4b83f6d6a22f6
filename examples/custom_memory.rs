//! Executing each ISA against a memory the embedder wrote: a flat scratchpad
//! with a read-only window, implementing `xstore_core::AddressSpace`. The
//! executors probe every write of an instruction through `check_write`
//! before they apply any through `write_probed`, so a faulting instruction
//! never reaches the scratchpad.
//!
//! Run: `cargo run --example custom_memory`

use xstore_core::report::RegValue;
use xstore_core::{AddressSpace, Fault, FaultKind, NoTrace, Probed};

/// `size` bytes from `base`; `[ro_base, ro_base + ro_size)` of them read-only.
/// Every committed write is logged.
struct Scratchpad {
    base: u64,
    bytes: Vec<u8>,
    read_only: std::ops::Range<u64>,
    log: Vec<(u64, Vec<u8>)>,
}

impl Scratchpad {
    fn new(base: u64, size: usize, read_only: std::ops::Range<u64>) -> Self {
        Scratchpad {
            base,
            bytes: vec![0; size],
            read_only,
            log: Vec::new(),
        }
    }

    fn end(&self) -> u64 {
        self.base + self.bytes.len() as u64
    }

    /// The first byte of `[addr, last]` outside the scratchpad.
    fn outside(&self, addr: u64, last: u64) -> Option<u64> {
        if addr < self.base || addr >= self.end() {
            Some(addr)
        } else if last >= self.end() {
            Some(self.end())
        } else {
            None
        }
    }

    fn print_log(&mut self, isa: &str) {
        for (addr, bytes) in self.log.drain(..) {
            let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
            println!("{isa:<6} write {addr:#06x}: {hex}");
        }
    }
}

impl AddressSpace for Scratchpad {
    fn read(&self, addr: u64, buf: &mut [u8]) -> Result<(), Fault> {
        let Some(last) = xstore_core::space::span_last(addr, buf.len())? else {
            return Ok(());
        };
        if let Some(bad) = self.outside(addr, last) {
            return Err(Fault {
                kind: FaultKind::Unmapped,
                addr: bad,
            });
        }
        let at = (addr - self.base) as usize;
        buf.copy_from_slice(&self.bytes[at..at + buf.len()]);
        Ok(())
    }

    fn check_write(&self, addr: u64, last: u64) -> Result<(), Fault> {
        if let Some(bad) = self.outside(addr, last) {
            return Err(Fault {
                kind: FaultKind::Unmapped,
                addr: bad,
            });
        }
        // The first read-only byte in the range, in address order.
        let ro = &self.read_only;
        if addr < ro.end && last >= ro.start {
            return Err(Fault {
                kind: FaultKind::ReadOnly,
                addr: addr.max(ro.start),
            });
        }
        Ok(())
    }

    fn write_probed(&mut self, w: Probed<'_>) {
        let at = (w.addr() - self.base) as usize;
        let dst = &mut self.bytes[at..at + w.len()];
        w.apply_to(dst);
        self.log.push((w.addr(), dst.to_vec()));
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut mem = Scratchpad::new(0x1000, 0x1000, 0x1800..0x1900);

    // Neuron: a 2 x 2 u16 TensorStore with a row step of 8 elements.
    let neuron = xstore_neuron::assemble(
        "tensor_store.u16 [0x1000], num_elem=(2,2), step_elem=(1,8), imm=(1,2,3,4)",
    )?;
    let mut m = xstore_neuron::Machine::new();
    for inst in &neuron {
        m.execute(inst, &mut mem, &mut NoTrace)?;
    }
    mem.print_log("neuron");

    // PTO: PE0 stores its 2 x 3 U8 tile T#1 at a0 = 0x1100, row stride 16.
    let block =
        xstore_pto::assemble("BSTART.TSTORE U8; B.IOR a0, a1; B.IOT T#1, mask=1000, last; BSTOP")?;
    let mut pe = xstore_pto::Machine::new();
    pe.set_gpr(0, "a0", 0x1100)?;
    pe.set_gpr(0, "a1", 16)?;
    let data = [1, 2, 3, 4, 5, 6];
    let tile = xstore_pto::TileSpec {
        dtype: "U8",
        capacity: 128,
        cols: 8,
        valid_rows: 2,
        valid_cols: 3,
        data: Some(&data),
        ..xstore_pto::TileSpec::default()
    };
    pe.set_tile(0, "T#1", &tile)?;
    pe.execute(&block, &mut mem, &mut NoTrace)?;
    mem.print_log("pto");

    // Vision-Q7: 70 bytes streamed through u0 from the unaligned 0x1203, flushed.
    let stream = xstore_q7::assemble(
        "IVP_ZALIGN u0\nIVP_SA2NX8_IP v1, u0, a4\nIVP_SAV2NX8_XP v2, u0, a4, a5\nIVP_SAPOS_FP u0, a4",
    )?;
    let mut q = xstore_q7::Machine::default();
    q.set_reg("a4", RegValue::Int(0x1203))?;
    q.set_reg("a5", RegValue::Int(6))?;
    q.set_vec(1, std::array::from_fn(|i| i as u8));
    q.set_vec(2, [0xee; 64]);
    let outcome = q.run(&stream, &mut mem, &mut NoTrace);
    assert_eq!((outcome.executed, outcome.stop.is_none()), (4, true));
    mem.print_log("q7");

    // A store that reaches the read-only window faults at its first read-only
    // byte, and the scratchpad sees nothing of it.
    let bad = xstore_neuron::assemble("tensor_store.u8 [0x17fe], num_elem=(4,1), imm=(9,9,9,9)")?;
    let fault = m.execute(&bad[0], &mut mem, &mut NoTrace).unwrap_err();
    println!("neuron fault: {fault}");
    assert!(mem.log.is_empty(), "a faulting instruction wrote nothing");
    assert_eq!(&mem.bytes[0x7fe..0x800], &[0, 0]);
    Ok(())
}

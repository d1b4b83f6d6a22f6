//! Execution and pseudo lowering (docs/neuron.md, "Execution").
//!
//! One instruction: every check of [`crate::validate::RULES`] in order (the
//! first failure is a fault named by its check), then the element walk
//! `k = i1*n0 + i0`, `addr = base + i0*step0*w + i1*step1*w`. A store stages
//! its writes in one [`Transaction`] (contiguous elements coalesced into one
//! write) and commits it through the [`AddressSpace`]'s probe-then-commit: a
//! fault writes nothing. A load reads every element before it writes any
//! register.

use crate::instruction::{AddrForm, Instruction, Mem2d};
use crate::tables::{self, DataSrc, Dir, OpcodeDef, F_ADDR, INST_LEN, MAX_ELEMS, NUM_REGS};
use crate::validate::{self, Fail};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use xstore_core::report::RegReport;
use xstore_core::report::RegValue;
use xstore_core::rules::CheckDef;
use xstore_core::step::{self, Load, Registers, Retired, Stepper, Stop, Unit};
use xstore_core::{AddressSpace, Diagnostic, TraceSink, Transaction};
use xstore_core::{Fault as MemFault, FaultKind as MemFaultKind};

/// The sequencer register file, `r0`..`r63` of 32 bits, and the executor's
/// scratch space (reused, so a steady-state executor allocates nothing).
#[derive(Debug, Clone)]
pub struct Machine {
    regs: [u32; NUM_REGS],
    tx: Transaction,
}

impl Default for Machine {
    fn default() -> Self {
        Machine::from_regs([0; NUM_REGS])
    }
}

/// What one executed instruction did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// Store (memory written) or load (registers written).
    pub dir: Dir,
    /// Elements moved.
    pub elements: usize,
}

/// What [`Machine::run`] did: how many instructions completed, and the
/// fault that stopped it with the index of the faulting instruction.
pub type RunOutcome = step::RunOutcome<Fault>;

/// The register index of a name: `r` and a decimal number without a leading
/// zero (the assembler's rule), below 64.
pub(crate) fn reg_index(name: &str) -> Option<usize> {
    crate::asm::parse_reg(name)
        .map(usize::from)
        .filter(|&i| i < NUM_REGS)
}

impl Machine {
    /// All registers zero.
    pub fn new() -> Machine {
        Machine::default()
    }

    /// The registers `r0`..`r63` as given.
    pub fn from_regs(regs: [u32; NUM_REGS]) -> Machine {
        Machine {
            regs,
            tx: Transaction::new(),
        }
    }

    /// The registers, `r0` first.
    pub fn regs(&self) -> &[u32; NUM_REGS] {
        &self.regs
    }

    /// Every register name, in report order: `r0`..`r63`.
    pub fn reg_names(&self) -> impl Iterator<Item = String> {
        (0..NUM_REGS).map(|r| format!("r{r}"))
    }

    /// The register named `name` (`r0`..`r63`).
    pub fn reg(&self, name: &str) -> Option<RegValue> {
        reg_index(name).map(|r| RegValue::Int(self.regs[r] as u64))
    }

    /// Set the register named `name` to an integer of 32 bits.
    pub fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        let r = reg_index(name).ok_or_else(|| {
            Diagnostic::range(format!("`{name}` is not a sequencer register")).expected("r0..r63")
        })?;
        match value {
            RegValue::Int(v) if v <= u32::MAX as u64 => {
                self.regs[r] = v as u32;
                Ok(())
            }
            other => Err(Diagnostic::range(format!(
                "{name} holds 32 bits; {other:?} does not fit"
            ))
            .expected("an integer 0..=0xffffffff")),
        }
    }

    /// Execute one instruction against `mem`. It must be lowered: a pseudo
    /// instruction, a register/table ADDR8 form and a not-modelled opcode are
    /// faults. On `Err`, memory and registers are unchanged.
    #[inline]
    pub fn execute<M: AddressSpace, T: TraceSink>(
        &mut self,
        inst: &Instruction,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Step, Fault> {
        match inst {
            Instruction::Mem2d(m) => self.step(m, mem, trace),
            Instruction::NotModelled(n) => Err(Fault(Cause::NotModelled(n.def()))),
        }
    }

    /// Execute `prog` in order until an instruction faults.
    pub fn run<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Instruction],
        mem: &mut M,
        trace: &mut T,
    ) -> RunOutcome {
        step::run(self, prog, mem, trace)
    }

    /// Execute one TensorStore / TensorLoad.
    #[inline]
    fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        inst: &Mem2d,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Step, Fault> {
        let base = match inst.addr_form() {
            AddrForm::Imm(a) => a,
            AddrForm::Other { marker, .. } => {
                return Err(Fault(Cause::UnsupportedAddr8 { marker }))
            }
            AddrForm::Var { .. } => return Err(Fault(Cause::Unlowered)),
        };
        if let Some((row, fail)) = validate::first_failure(inst) {
            return Err(Fault(Cause::Check { def: row.def, fail }));
        }
        let w = tables::set_width(inst.dtype).expect("checked by mem2d_shared_constraints");
        // The window rule held on `base`: no offset overflows.
        let walk = Walk {
            base,
            n: [inst.num_elem[0] as usize, inst.num_elem[1] as usize],
            d: [
                inst.step_elem[0] as i64 * w as i64,
                inst.step_elem[1] as i64 * w as i64,
            ],
        };
        let elements = inst.count();
        let dir = inst.dir();
        match dir {
            Dir::Store => {
                self.tx.clear();
                match w {
                    1 => store_elems::<1>(&self.regs, inst, &walk, &mut self.tx),
                    2 => store_elems::<2>(&self.regs, inst, &walk, &mut self.tx),
                    4 => store_elems::<4>(&self.regs, inst, &walk, &mut self.tx),
                    _ => store_elems::<8>(&self.regs, inst, &walk, &mut self.tx),
                }
                mem.commit(&self.tx, trace)
                    .map_err(|f| Fault(Cause::Memory(f)))?;
            }
            Dir::Load => load_elems(&mut self.regs, inst, &walk, w as usize, mem, trace)?,
        }
        Ok(Step { dir, elements })
    }
}

/// The element walk of a checked instruction: base, counts, byte strides.
struct Walk {
    base: u64,
    n: [usize; 2],
    d: [i64; 2],
}

impl Walk {
    /// Calls `f(k, addr)` for each element, k = i1*n0 + i0, outer i1.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(usize, u64)) {
        let mut k = 0usize;
        for i1 in 0..self.n[1] {
            let row = self.base.wrapping_add((i1 as i64 * self.d[1]) as u64);
            for i0 in 0..self.n[0] {
                f(k, row.wrapping_add((i0 as i64 * self.d[0]) as u64));
                k += 1;
            }
        }
    }
}

/// The value of data slot / element `k` for a store, before truncation.
#[inline]
fn store_value(regs: &[u32; NUM_REGS], inst: &Mem2d, k: usize, w: usize) -> u64 {
    if inst.datasrc == DataSrc::Register.code() {
        let r = inst.data[k] as usize;
        let lo = regs[r] as u64;
        if w == 8 {
            lo | (regs[r + 1] as u64) << 32
        } else {
            lo
        }
    } else {
        let mut b = [0u8; 8];
        b[..w].copy_from_slice(&inst.data[k * w..k * w + w]);
        u64::from_le_bytes(b)
    }
}

/// The bytes of the longest run of elements: every element, at the widest dtype.
const RUN_BYTES: usize = MAX_ELEMS * 8;

/// Put the store's element writes into `tx`, in element order, coalescing
/// elements that continue the previous one into one write.
#[inline]
fn store_elems<const W: usize>(
    regs: &[u32; NUM_REGS],
    inst: &Mem2d,
    walk: &Walk,
    tx: &mut Transaction,
) {
    let [n0, n1] = walk.n;
    // Immediates laid out densely in memory are the data bytes themselves.
    let dense = walk.d[0] == W as i64 && (n1 == 1 || walk.d[1] == (n0 * W) as i64);
    if inst.datasrc == DataSrc::Immediate.code() && dense {
        tx.write(walk.base, &inst.data[..n0 * n1 * W]);
        return;
    }
    let mut run = [0u8; RUN_BYTES];
    let mut run_len = 0usize;
    let mut run_at = 0u64;
    walk.each(|k, addr| {
        let v = store_value(regs, inst, k, W).to_le_bytes();
        if run_len > 0 && addr != run_at.wrapping_add(run_len as u64) {
            tx.write(run_at, &run[..run_len]);
            run_len = 0;
        }
        if run_len == 0 {
            run_at = addr;
        }
        run[run_len..run_len + W].copy_from_slice(&v[..W]);
        run_len += W;
    });
    if run_len > 0 {
        tx.write(run_at, &run[..run_len]);
    }
}

/// Tell `trace` what a load read, once every read succeeded: the elements'
/// bytes in element order, elements that continue the previous one as one
/// read (as a store's writes are coalesced).
#[cold]
fn trace_reads<T: TraceSink>(vals: &[u64], walk: &Walk, w: usize, trace: &mut T) {
    let mut run = [0u8; RUN_BYTES];
    let mut run_len = 0usize;
    let mut run_at = 0u64;
    walk.each(|k, addr| {
        if run_len > 0 && addr != run_at.wrapping_add(run_len as u64) {
            trace.read(run_at, &run[..run_len]);
            run_len = 0;
        }
        if run_len == 0 {
            run_at = addr;
        }
        run[run_len..run_len + w].copy_from_slice(&vals[k].to_le_bytes()[..w]);
        run_len += w;
    });
    if run_len > 0 {
        trace.read(run_at, &run[..run_len]);
    }
}

/// Read every element, then write the destination registers (nothing is
/// written when a read faults).
fn load_elems<M: AddressSpace, T: TraceSink>(
    regs: &mut [u32; NUM_REGS],
    inst: &Mem2d,
    walk: &Walk,
    w: usize,
    mem: &M,
    trace: &mut T,
) -> Result<(), Fault> {
    let signed = tables::dtype(inst.dtype).is_some_and(|d| d.signed);
    let mut vals = [0u64; MAX_ELEMS];
    let mut fault = None;
    walk.each(|k, addr| {
        if fault.is_some() {
            return;
        }
        match mem.read_le(addr, w) {
            Ok(v) => vals[k] = v,
            Err(f) => fault = Some(f),
        }
    });
    if let Some(f) = fault {
        if T::ENABLED {
            trace.fault(&f);
        }
        return Err(Fault(Cause::Memory(f)));
    }
    if T::ENABLED {
        trace_reads(&vals[..inst.count()], walk, w, trace);
    }
    for (k, &v) in vals[..inst.count()].iter().enumerate() {
        let r = inst.data[k] as usize;
        match w {
            8 => {
                regs[r] = v as u32;
                regs[r + 1] = (v >> 32) as u32;
            }
            4 => regs[r] = v as u32,
            _ if signed => {
                let sh = 64 - 8 * w as u32;
                regs[r] = (((v << sh) as i64) >> sh) as u32;
            }
            _ => regs[r] = v as u32,
        }
    }
    Ok(())
}

/// The kinds of fault `run` reports, each with its stable name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// A check of `validate` failed: named by the check (for the
    /// instruction's direction), e.g. `valid_start_addr`.
    Check(CheckDef),
    /// The memory refused an access: `unmapped`, `read_only`, `misaligned`,
    /// `address_overflow`, `allocation_cap`.
    Memory(MemFaultKind),
    /// The start address is a register/table ADDR8 form; the model has no
    /// resolver for it.
    UnsupportedAddr8,
    /// A pseudo instruction reached the executor unlowered.
    UnloweredPseudo,
    /// An opcode of the 0xa5..0xa9 block: recognised, not modelled.
    NotModelled,
}

impl FaultKind {
    /// Every name a fault can carry: the checks' (each direction's), the
    /// memory's, and the model's own.
    pub fn names() -> Vec<&'static str> {
        let mut names: Vec<&'static str> =
            crate::validate::rows().map(|(r, _)| r.def.name).collect();
        names.extend(xstore_core::isa::memory_fault_kinds());
        names.extend(
            [
                FaultKind::UnsupportedAddr8,
                FaultKind::UnloweredPseudo,
                FaultKind::NotModelled,
            ]
            .iter()
            .map(FaultKind::name),
        );
        names
    }

    /// The stable name `run` prints and scenarios expect.
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Check(def) => def.name,
            FaultKind::Memory(k) => k.name(),
            FaultKind::UnsupportedAddr8 => "unsupported_addr8",
            FaultKind::UnloweredPseudo => "unlowered_pseudo",
            FaultKind::NotModelled => "not_modelled",
        }
    }
}

/// Why an instruction did not complete. Nothing was written and no register
/// changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault(Cause);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cause {
    Check { def: CheckDef, fail: Fail },
    Memory(MemFault),
    UnsupportedAddr8 { marker: u8 },
    Unlowered,
    NotModelled(&'static OpcodeDef),
}

impl Fault {
    /// The kind, as a typed value.
    pub fn fault_kind(&self) -> FaultKind {
        match self.0 {
            Cause::Check { def, .. } => FaultKind::Check(def),
            Cause::Memory(f) => FaultKind::Memory(f.kind),
            Cause::UnsupportedAddr8 { .. } => FaultKind::UnsupportedAddr8,
            Cause::Unlowered => FaultKind::UnloweredPseudo,
            Cause::NotModelled(_) => FaultKind::NotModelled,
        }
    }

    /// The kind's stable name (what `run` prints).
    pub fn kind(&self) -> &'static str {
        self.fault_kind().name()
    }

    /// The address the fault is about, where there is one: the first
    /// failing byte of a memory fault, the start address of a misaligned or
    /// window-crossing instruction.
    pub fn address(&self) -> Option<u64> {
        match self.0 {
            Cause::Check { fail, .. } => fail.address(),
            Cause::Memory(f) => Some(f.addr),
            _ => None,
        }
    }

    /// The memory model's fault, when the memory refused an access.
    pub fn memory_fault(&self) -> Option<MemFault> {
        match self.0 {
            Cause::Memory(f) => Some(f),
            _ => None,
        }
    }

    /// One sentence: the rule and what broke it.
    pub fn message(&self) -> Cow<'static, str> {
        match self.0 {
            Cause::Check { def, fail } => format!("{}: {fail}", def.name).into(),
            Cause::Memory(f) => f.to_string().into(),
            Cause::UnsupportedAddr8 { marker } => unsupported_addr8_message(marker).into(),
            Cause::Unlowered => "a pseudo instruction must be lowered first".into(),
            Cause::NotModelled(def) => {
                format!("opcode {:#04x} {} is not modelled", def.code, def.name).into()
            }
        }
    }

    /// The sequencer has no numeric fault codes.
    pub fn code(&self) -> Option<u32> {
        None
    }
}

impl fmt::Display for Fault {
    /// [`Fault::message`].
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for Fault {}

xstore_core::unit_fault!(Fault);

impl Unit for Instruction {
    fn text(&self) -> String {
        self.to_string()
    }
    fn bytes(&self) -> Vec<u8> {
        self.encode().to_vec()
    }
}

/// The machine in the stepping layer: a program is a slice of
/// instructions, each a unit of its own.
impl Stepper for Machine {
    type Program = [Instruction];
    type Fault = Fault;
    #[inline]
    fn step<M: AddressSpace, T: TraceSink>(
        &mut self,
        prog: &[Instruction],
        index: usize,
        mem: &mut M,
        trace: &mut T,
    ) -> Result<Retired, Stop<Fault>> {
        Retired::of(self.execute(&prog[index], mem, trace))
    }
}

impl Registers for Machine {
    type Snapshot = [u32; NUM_REGS];
    fn snapshot(&self) -> [u32; NUM_REGS] {
        self.regs
    }
    fn changed(&self, before: &[u32; NUM_REGS], out: &mut Vec<RegReport>) {
        if self.regs == *before {
            return;
        }
        for (i, (&now, &was)) in self.regs.iter().zip(before).enumerate() {
            if now != was {
                out.push(RegReport {
                    name: format!("r{i}"),
                    value: RegValue::Int(now as u64),
                    changed: true,
                });
            }
        }
    }
    fn reg_names(&self) -> Vec<String> {
        Machine::reg_names(self).collect()
    }
    fn reg(&self, name: &str) -> Option<RegValue> {
        Machine::reg(self, name)
    }
    fn set_reg(&mut self, name: &str, value: RegValue) -> Result<(), Diagnostic> {
        Machine::set_reg(self, name, value)
    }
}

impl Load for Machine {
    type Owned = Vec<Instruction>;
    fn decode(bytes: &[u8]) -> Result<Vec<Instruction>, Diagnostic> {
        crate::codec::decode(bytes).map_err(crate::decode_diagnostic)
    }
    fn assemble(text: &str) -> Result<Vec<Instruction>, Diagnostic> {
        crate::assemble(text)
    }
}

/// The message of an instruction whose ADDR8 form has no resolver.
pub(crate) fn unsupported_addr8_message(marker: u8) -> String {
    format!(
        "unsupported ADDR8 form: marker {marker:#04x} ({}); executing it needs an address \
         resolver, which the model does not guess",
        tables::describe_marker(marker)
    )
}

/// Lower one pseudo instruction with a var_id → base table. Non-pseudo
/// instructions are returned unchanged.
pub(crate) fn lower_one(inst: &Mem2d, symbols: &BTreeMap<u32, u64>) -> Result<Mem2d, Diagnostic> {
    let AddrForm::Var { var_id, var_offset } = inst.addr_form() else {
        return Ok(*inst);
    };
    let base = *symbols
        .get(&var_id)
        .ok_or_else(|| unknown_var(var_id, symbols))?;
    let max = tables::IMM_ADDR_MAX;
    let addr = base
        .checked_add(var_offset as u64)
        .filter(|&a| a <= max)
        .ok_or_else(|| {
            Diagnostic::range(format!(
                "var_id {var_id}: base {base:#x} + var_offset {var_offset:#x} does not fit the \
                 {}-bit immediate ADDR8",
                tables::IMM_ADDR_BITS
            ))
            .rule("pseudo_lowering")
            .expected(format!("0..={max:#x}"))
        })?;
    let mut out = *inst;
    out.op = inst.op.lowered();
    out.addr_raw = AddrForm::Imm(addr).raw();
    Ok(out)
}

fn unknown_var(var_id: u32, symbols: &BTreeMap<u32, u64>) -> Diagnostic {
    let expected = if symbols.is_empty() {
        "a [symbols] entry (the table is empty)".to_string()
    } else {
        let ids: Vec<String> = symbols.keys().map(|k| k.to_string()).collect();
        format!("one of: {}", ids.join(", "))
    };
    Diagnostic::range(format!("var_id {var_id} is not in the symbol table"))
        .rule("pseudo_lowering")
        .expected(expected)
}

/// Lower a stream of N × 64 bytes: bytes 16..24 of each pseudo instruction
/// become the immediate ADDR8 `table[var_id] + var_offset`, its opcode the
/// store's or the load's; every other byte is copied. Errors carry the byte
/// offset.
pub fn lower_stream(bytes: &[u8], symbols: &BTreeMap<u32, u64>) -> Result<Vec<u8>, Diagnostic> {
    let insts = crate::codec::decode(bytes).map_err(crate::decode_diagnostic)?;
    let mut out = Vec::with_capacity(bytes.len());
    for (i, d) in insts.iter().enumerate() {
        let lowered = match d {
            Instruction::Mem2d(m) => Instruction::Mem2d(
                lower_one(m, symbols)
                    .map_err(|e| e.at_byte((i * INST_LEN + F_ADDR.start) as u64, None))?,
            ),
            other => *other,
        };
        out.extend_from_slice(&lowered.encode());
    }
    Ok(out)
}

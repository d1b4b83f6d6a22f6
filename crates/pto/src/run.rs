//! One block, start to end: its decoding, the zero-mask rule, structure and
//! static legality (`validate`), then TSTORE's plans and writes (`exec`) or
//! TLOAD's plans and reads (`load`). The one place the two directions meet.

use crate::exec::{commit, locate, map_fault, plan_block, plan_writes, Planned, Scratch, Step};
use crate::fault::Fault;
use crate::instruction::Word;
use crate::state::State;
use crate::tables::{self, FaultKind, Rule};
use crate::validate::{check_static, check_structure};
use xstore_core::decode::DecodeError;
use xstore_core::{AddressSpace, TraceSink};

/// Execute one block: its decoding (`undecoded`: the first word of the block
/// that did not decode, by its index in the block), zero mask, structure,
/// legality, readiness, per-PE legality, then the writes (preflighted whole).
pub(crate) fn run_block<M: AddressSpace, T: TraceSink>(
    m: &mut State,
    block: &[Word],
    undecoded: Option<(usize, &DecodeError)>,
    mem: &mut M,
    s: &mut Scratch,
    trace: &mut T,
) -> Result<Step, Fault> {
    if let Some((i, e)) = undecoded {
        return Err(Fault::new(
            Rule::Decode,
            None,
            format!(
                "word {i}: {} (field {}) [decode]",
                e.message,
                crate::codec::failing_field(e)
            ),
        ));
    }
    run_words(m, block, mem, s, trace)
}

/// Execute a decoded block.
fn run_words<M: AddressSpace, T: TraceSink>(
    m: &mut State,
    words: &[Word],
    mem: &mut M,
    s: &mut Scratch,
    trace: &mut T,
) -> Result<Step, Fault> {
    if first_pemode(words) == Some(0) {
        return Ok(Step::NoOp);
    }
    let (h, v) = check_structure(words);
    if let Some(v) = v.into_iter().next() {
        return Err(v.fault());
    }
    let h = h.expect("no structure violation means a header");
    if let Some(v) = check_static(&h).into_iter().next() {
        return Err(v.fault());
    }
    if h.tload {
        return crate::load::run_load(m, &h, mem, s, trace);
    }
    let m: &State = m;
    let mut plans = std::mem::take(&mut s.plans);
    let planned = plan_block(m, &h, &mut plans);
    s.plans = plans;
    match planned {
        Planned::Ready => {}
        Planned::Pending(why) => return Ok(Step::Pending(why)),
        Planned::Fault(f) => return Err(f),
    }
    plan_writes(m, s, mem);
    let bits = tables::dtype(h.dtype).map(|d| d.bits).unwrap_or(8);
    match commit(m, s, mem, trace) {
        Ok(()) => Ok(Step::Stored),
        Err(f) => {
            let pf = map_fault(&f, bits);
            match pf.address.and_then(|a| locate(&s.plans, a)) {
                Some((pe, r, c)) if pf.kind != FaultKind::AllocationCap => {
                    Err(pf.prefixed(format_args!("PE{pe} element ({r}, {c})")))
                }
                _ => Err(pf),
            }
        }
    }
}

/// The first tile binding's PEMode (for the zero-mask rule).
fn first_pemode(words: &[Word]) -> Option<u8> {
    words.iter().find_map(|w| match w {
        Word::Iot { pemode, .. } | Word::IotDst { pemode, .. } | Word::Ios { pemode, .. } => {
            Some(*pemode)
        }
        _ => None,
    })
}

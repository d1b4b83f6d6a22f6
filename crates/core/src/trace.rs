//! Where committed writes go: the [`TraceSink`] every executor is generic
//! over, [`NoTrace`] (which compiles the tracing away) and [`VecTrace`]
//! (which keeps every event).

use crate::fault::Fault;

/// Receives the effects of committed transactions, in commit order.
///
/// Executors are generic over this trait; [`NoTrace`] sets [`TraceSink::ENABLED`]
/// to false so the untraced path compiles to nothing.
pub trait TraceSink {
    /// False for a sink that records nothing, so tracing code compiles out.
    const ENABLED: bool = true;
    /// `bytes` were written at `addr` (the bytes now in memory; for masked writes,
    /// one call per run of touched bytes).
    fn write(&mut self, addr: u64, bytes: &[u8]);
    /// A transaction faulted and wrote nothing.
    fn fault(&mut self, _fault: &Fault) {}
    /// `bytes` were read at `addr` by an instruction whose reads all probed
    /// clean ([`AddressSpace::load_spans`](crate::AddressSpace::load_spans)).
    /// Ignored by default: the trace is of effects on memory.
    fn read(&mut self, _addr: u64, _bytes: &[u8]) {}
}

/// The sink that records nothing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl TraceSink for NoTrace {
    const ENABLED: bool = false;
    #[inline(always)]
    fn write(&mut self, _addr: u64, _bytes: &[u8]) {}
}

/// One traced effect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TraceEvent {
    /// `bytes` were written at `addr`.
    Write {
        /// First byte written.
        addr: u64,
        /// The bytes now in memory.
        bytes: Vec<u8>,
    },
    /// An instruction faulted and wrote nothing.
    Fault(Fault),
}

/// A sink that keeps every event.
#[derive(Debug, Default, Clone)]
pub struct VecTrace {
    /// The events, in commit order.
    pub events: Vec<TraceEvent>,
}

impl VecTrace {
    /// The first byte and the length of each write, in commit order (the
    /// faults left out).
    pub fn spans(&self) -> Vec<(u64, usize)> {
        self.events
            .iter()
            .filter_map(|e| match e {
                TraceEvent::Write { addr, bytes } => Some((*addr, bytes.len())),
                TraceEvent::Fault(_) => None,
            })
            .collect()
    }
}

impl TraceSink for VecTrace {
    fn write(&mut self, addr: u64, bytes: &[u8]) {
        self.events.push(TraceEvent::Write {
            addr,
            bytes: bytes.to_vec(),
        });
    }
    fn fault(&mut self, fault: &Fault) {
        self.events.push(TraceEvent::Fault(*fault));
    }
}

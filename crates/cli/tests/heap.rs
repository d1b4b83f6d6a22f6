//! Peak heap of the streaming paths, counted by this test binary's own
//! allocator (deterministic: no clock, no process statistics): decoding a
//! stream of 10^6 instructions, loading a scenario of 10^6 program lines, and
//! running 10^6 instructions with every write streamed to a sink that keeps
//! nothing. Each peak must stay under the bound README.md ("Resource bounds")
//! states: the input, its decoded form and the memory the program touches,
//! never the output.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use xstore_core::isa::{run_scenario_with, Isa};
use xstore_core::scenario::Scenario;
use xstore_core::stream::WriteSink;

struct Counting;

static NOW: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call goes to the system allocator unchanged; the counters
// only observe the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(l) };
        if !p.is_null() {
            let now = NOW.fetch_add(l.size(), Relaxed) + l.size();
            PEAK.fetch_max(now, Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) };
        NOW.fetch_sub(l.size(), Relaxed);
    }
}

#[global_allocator]
static A: Counting = Counting;

/// The tests measure one at a time.
static ONE: Mutex<()> = Mutex::new(());

/// The peak heap `f` adds to what was live when it started.
fn peak_of<R>(f: impl FnOnce() -> R) -> (R, usize) {
    let base = NOW.load(Relaxed);
    PEAK.store(base, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed) - base)
}

const N: usize = 1_000_000;
const MIB: usize = 1 << 20;

fn keys(isa: &'static dyn Isa) -> impl Fn(&str) -> Option<&'static [&'static str]> {
    move |name| (name == isa.name()).then(|| isa.scenario_keys())
}

struct Discard(usize);

impl WriteSink for Discard {
    fn write(&mut self, _addr: u64, bytes: &[u8]) {
        self.0 += bytes.len();
    }
}

#[test]
fn decoding_a_million_instructions_holds_only_their_decoded_form() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let isa = xstore_neuron::isa();
    let one = isa
        .asm("tensor_store.u8 [0x100], num_elem=(4,1), imm=(1,2,3,4)")
        .unwrap()
        .concat();
    let stream = one.repeat(N);
    let (lines, peak) = peak_of(|| {
        let mut n = 0usize;
        isa.disasm_each(&stream, &mut |_| n += 1).unwrap();
        n
    });
    assert_eq!(lines, N);
    // The decoded instructions, sized once, and nothing per line printed.
    let decoded = N * std::mem::size_of::<xstore_neuron::Instruction>();
    assert!(
        peak <= decoded + MIB,
        "peak {peak} over the decoded form {decoded} (input {})",
        stream.len()
    );
}

#[test]
fn loading_a_million_line_scenario_costs_a_bounded_multiple_of_its_text() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let isa = xstore_q7::isa();
    let text = format!(
        "isa = \"q7\"\nprogram = \"\"\"\n{}\"\"\"\n",
        "IVP_SV2NX8_IP v0, a3, 64\n".repeat(N)
    );
    let (sc, peak) = peak_of(|| Scenario::parse(&text, "big.toml", &["q7"], &keys(isa)).unwrap());
    drop(sc);
    // README: loading costs about 35 bytes per byte of TOML at most (the
    // parser's tokens and tables); a program string is one value.
    assert!(
        peak <= 8 * text.len() + MIB,
        "peak {peak} for {} bytes of text",
        text.len()
    );
}

#[test]
fn running_a_million_instructions_holds_the_program_and_the_memory_touched() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let isa = xstore_q7::isa();
    let text = format!(
        "isa = \"q7\"\nprogram = \"\"\"\n{}\"\"\"\n[regs]\na3 = 0x100000\n",
        "IVP_SV2NX8_IP v0, a3, 64\n".repeat(N)
    );
    let sc = Scenario::parse(&text, "big.toml", &["q7"], &keys(isa)).unwrap();
    let mut sink = Discard(0);
    let (r, peak) = peak_of(|| run_scenario_with(isa, &sc, 1 << 30, &mut sink).unwrap());
    assert_eq!(r.exec.executed, N);
    let written = 64 * N;
    assert_eq!(sink.0, written, "every write reached the sink");
    drop(r);
    // The touched memory (pages of 4 KiB, allocated in 2 MiB chunks) and the
    // assembled program: its bundles with their line positions, and the copy
    // the executor runs, at most 128 bytes an instruction (README, "Resource
    // bounds"). A run that kept its writes would hold 64 MB more than this
    // bound allows.
    let bound = written + 2 * MIB + 128 * N + 4 * MIB;
    assert!(peak <= bound, "peak {peak}, bound {bound}");
}

//! A fixed loop over the `xstore bench q7` programs, for instruction counts
//! that do not move with the machine's load:
//!
//! ```text
//! cargo build --release -p xstore-q7 --example stream_loop
//! valgrind --tool=callgrind target/release/examples/stream_loop aligned 2
//! valgrind --tool=callgrind target/release/examples/stream_loop aligned 4
//! ```
//!
//! The difference of the two totals over the extra units (2 × 16384) is the
//! cost of one bundle.

use xstore_core::{Memory, NoTrace};
use xstore_q7::{assemble, Machine};

const SPAN: usize = 1 << 20;

fn program(kind: &str) -> String {
    let k = SPAN / 64;
    let mut text = String::new();
    match kind {
        "aligned" => {
            for i in 0..k {
                text += &format!("IVP_SV2NX8_XP v{}, a3, a4\n", i % 32);
            }
        }
        "unaligned" => {
            text += "IVP_ZALIGN u0\n";
            for i in 0..k - 1 {
                text += &format!("IVP_SA2NX8_IP v{}, u0, a3\n", i % 32);
            }
            text += &format!("IVP_SAV2NX8_XP v{}, u0, a3, a5\n", (k - 1) % 32);
            text += "IVP_SAPOS_FP u0, a3\n";
        }
        other => panic!("no program {other:?}: aligned or unaligned"),
    }
    text
}

fn main() {
    let mut args = std::env::args().skip(1);
    let kind = args.next().unwrap_or_else(|| "aligned".into());
    let reps: usize = args.next().map_or(1, |n| n.parse().expect("a count"));
    let prog = assemble(&program(&kind)).expect("the program assembles");
    let start: u32 = if kind == "aligned" {
        0x10_0000
    } else {
        0x10_0003
    };
    let mut m = Machine::default();
    for n in 0..32 {
        m.set_vec(n, std::array::from_fn(|i| (i * 7 + n) as u8));
    }
    m.set_ar(4, 64);
    m.set_ar(5, 64);
    let mut mem = Memory::new(xstore_q7::PROFILES[0].map());
    let mut best = f64::MAX;
    for _ in 0..reps {
        m.set_ar(3, start);
        let t = std::time::Instant::now();
        let r = m.run(std::hint::black_box(&prog), &mut mem, &mut NoTrace);
        best = best.min(t.elapsed().as_secs_f64());
        assert!(r.stop.is_none(), "the loop's programs do not fault");
    }
    let ns = best * 1e9 / prog.len() as f64;
    // The bench's baseline: copies of the same 64-byte vectors.
    let vecs: [[u8; 64]; 32] = std::array::from_fn(|n| *m.vec(n));
    let mut flat = vec![0u8; SPAN + 128];
    let off = (start % 64) as usize;
    let mut base = f64::MAX;
    for _ in 0..reps {
        let t = std::time::Instant::now();
        for i in 0..SPAN / 64 {
            let d = off + i * 64;
            flat[d..d + 64].copy_from_slice(std::hint::black_box(&vecs[i % 32]));
        }
        std::hint::black_box(&flat);
        base = base.min(t.elapsed().as_secs_f64());
    }
    let base_ns = base * 1e9 / (SPAN / 64) as f64;
    println!(
        "{kind}: {} bundles x {reps}, best {ns:.2} ns a bundle; copy {base_ns:.2} ns; ratio {:.2}",
        prog.len(),
        base_ns / ns
    );
}

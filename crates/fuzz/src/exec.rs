//! Execution of generated programs, with the intent and fault-atomicity oracles,
//! and the Q7 valign stream against a small reference of the stream contract.

use crate::text::{load, CAP};
use arbitrary::Unstructured;
use std::cell::Cell;
use xstore_core::hex;
use xstore_core::isa::{run_scenario, Isa};
use xstore_core::verify::{Config, Intent, Rng};

thread_local! {
    /// Instructions the targets have executed (completed) on this thread, for
    /// the smoke test to show that its inputs reach the executors.
    pub(crate) static EXECUTED: Cell<usize> = const { Cell::new(0) };
    /// Faults the execution target has checked for atomicity on this thread.
    pub(crate) static FAULTS_CHECKED: Cell<usize> = const { Cell::new(0) };
    /// Inputs that executed at least one instruction, on this thread.
    pub(crate) static EXECUTING: Cell<usize> = const { Cell::new(0) };
}

fn count(c: &'static std::thread::LocalKey<Cell<usize>>, n: usize) {
    c.with(|c| c.set(c.get() + n));
}

/// A program of the verification kit's generator (the ISA's own, with its
/// default configuration), its choices drawn from the fuzzer's bytes, runs:
/// it does what its generator meant (complete, or stop with that fault kind
/// at that unit), and when unit `i` faults, the same scenario cut before `i`
/// runs clean and leaves exactly the same writes and registers: the faulting
/// unit changed nothing.
pub fn execute(isa: &dyn Isa, data: &[u8]) {
    let cfg = Config::defaults(isa.verify().gen_spec());
    let mut rng = Rng::from_tape(data);
    let plan = xstore_verify::gen::plan(&cfg, &mut rng, None);
    let g = isa.verify().generate(&cfg, &plan, &mut rng);
    let text = g.setup.render(&g.units, "");
    let (sc, isa) = load(&text).unwrap_or_else(|| panic!("a generated scenario loads:\n{text}"));
    let full = run_scenario(isa, &sc, CAP).unwrap_or_else(|d| panic!("{d}\n{text}"));
    count(&EXECUTED, full.exec.executed);
    count(&EXECUTING, usize::from(full.exec.executed > 0));
    let fault = full.exec.fault.as_ref();
    match g.intent {
        Intent::Complete => assert!(fault.is_none(), "meant to complete: {fault:?}\n{text}"),
        Intent::Fault { unit, kind } | Intent::Illegal { unit, kind, .. } => assert_eq!(
            fault.map(|f| (f.instruction, f.kind.as_str())),
            Some((Some(unit), kind)),
            "meant to fault\n{text}"
        ),
        Intent::Pending { unit } => assert_eq!(full.exec.executed, unit, "{text}"),
    }
    let Some(i) = fault.and_then(|f| f.instruction) else {
        return;
    };
    let cut = g.setup.render(&g.units[..i], "");
    let (sc, _) = load(&cut).expect("a prefix of a program that loaded loads");
    let part = run_scenario(isa, &sc, CAP).expect("a prefix of a program that ran runs");
    assert_eq!(part.exec.executed, i, "the prefix runs clean:\n{cut}");
    assert!(part.exec.fault.is_none(), "the prefix runs clean:\n{cut}");
    assert_eq!(
        full.writes, part.writes,
        "instruction {i} faulted but wrote:\n{text}"
    );
    let regs = |r: &xstore_core::report::Exec| {
        r.regs
            .iter()
            .map(|x| (x.name.clone(), x.value.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        regs(&full.exec),
        regs(&part.exec),
        "instruction {i} faulted but changed registers:\n{text}"
    );
    count(&FAULTS_CHECKED, 1);
}

/// A valign stream: `IVP_ZALIGN`, then appends (`IVP_SA2NX8_IP`: 64 bytes;
/// `IVP_SAV2NX8_XP`: a register's count, clamped to 0..=64) through one
/// register from a random address, and sometimes the flush `IVP_SAPOS_FP`.
/// The contract: the appended bytes land at consecutive addresses from the
/// start, each 64-byte row written once it is complete, the pending tail
/// only by the flush, and nothing else changes.
pub fn q7_valign(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let _ = valign_case(&mut u);
}

fn valign_case(u: &mut Unstructured<'_>) -> arbitrary::Result<()> {
    const FILL: u8 = 0xee;
    const SPAN: u64 = 0x4000;
    let start = 0x1000 + u.int_in_range(0..=0x7ffu64)?;
    let vecs: Vec<[u8; 64]> = (0..4)
        .map(|_| u.arbitrary::<[u8; 64]>())
        .collect::<arbitrary::Result<_>>()?;
    let mut program = vec!["IVP_ZALIGN u0".to_string()];
    let mut regs = format!("a2 = {start:#x}\n");
    let mut stream: Vec<u8> = Vec::new();
    for k in 0..u.int_in_range(0..=12usize)? {
        let v = u.int_in_range(0..=3usize)?;
        if u.ratio(1, 2)? {
            program.push(format!("IVP_SA2NX8_IP v{v}, u0, a2"));
            stream.extend_from_slice(&vecs[v]);
        } else {
            // Counts a3..a14, one register per append; some negative or past 64.
            let r = 3 + k;
            let n: i64 = u.int_in_range(-3..=70)?;
            regs.push_str(&format!("a{r} = {}\n", n as u32));
            program.push(format!("IVP_SAV2NX8_XP v{v}, u0, a2, a{r}"));
            stream.extend_from_slice(&vecs[v][..n.clamp(0, 64) as usize]);
        }
    }
    let flush = u.ratio(1, 2)?;
    if flush {
        program.push("IVP_SAPOS_FP u0, a2".into());
    }
    for (i, v) in vecs.iter().enumerate() {
        regs.push_str(&format!("v{i} = \"{}\"\n", hex::encode(v)));
    }
    // The expected memory: the stream's bytes up to the last completed row
    // boundary (or all of them after a flush), fill elsewhere.
    let end = start + stream.len() as u64;
    let written_end = if flush { end } else { (end & !63).max(start) };
    // Compared over the rows the stream can touch and one row either side.
    let (lo, hi) = ((start & !63) - 64, (end | 63) + 65);
    let mut want = vec![FILL; (hi - lo) as usize];
    for (i, &b) in stream.iter().enumerate() {
        let a = start + i as u64;
        if a < written_end {
            want[(a - lo) as usize] = b;
        }
    }
    let text = format!(
        "isa = \"q7\"\nprogram = \"\"\"\n{}\n\"\"\"\n\n[[memory]]\nbase = 0\nsize = {SPAN:#x}\nfill = {FILL:#x}\n\n[regs]\n{regs}\n[[expect.memory]]\naddr = {lo:#x}\nhex = \"{}\"\n",
        program.join("\n"),
        hex::encode(&want)
    );
    let (sc, isa) = load(&text).expect("the valign scenario loads");
    let r = run_scenario(isa, &sc, CAP).expect("the valign scenario runs");
    count(&EXECUTED, r.exec.executed);
    count(&EXECUTING, usize::from(r.exec.executed > 0));
    assert!(
        r.exec.fault.is_none(),
        "the stream faulted: {:?}\n{text}",
        r.exec.fault
    );
    assert!(
        r.expect_failures.is_empty(),
        "{:?}\n{text}",
        r.expect_failures
    );
    Ok(())
}

//! `gen` for every ISA of the registry: a program is a pure function of the
//! configuration, the seed and the index; threads and shards only choose
//! which programs to make; every generated scenario runs to the
//! expectations written into it and does what its generator meant (its
//! intent), and each deliberate fault changes nothing.

use xstore_core::isa::{load_scenario, run_scenario, Isa};
use xstore_core::mem::DEFAULT_CAP;
use xstore_core::scenario::Outcome;
use xstore_core::verify::{default_text, Config, Intent};
use xstore_verify::gen::{Campaign, GenScenario, Shard};

fn collect(c: &Campaign, indices: &[u64], jobs: usize) -> Vec<GenScenario> {
    let mut out = Vec::new();
    c.each(indices, jobs, &mut |g| {
        out.push(g);
        Ok(())
    })
    .unwrap();
    out
}

#[test]
fn a_program_is_a_function_of_seed_and_index_at_any_thread_count() {
    for &isa in xstore_isas::all() {
        let c = Campaign::new(isa, 42);
        let idx: Vec<u64> = (0..100).collect();
        let one = collect(&c, &idx, 1);
        let four = collect(&c, &idx, 4);
        assert_eq!(one, four, "{}", isa.name());
        assert_eq!(one[7], c.program(7).unwrap());
        assert_eq!(one[7].name, format!("{}-42-000007", isa.name()));
        let other = Campaign::new(isa, 43).program(7).unwrap();
        assert_ne!(one[7].scenario, other.scenario, "{}", isa.name());
    }
}

#[test]
fn shards_are_disjoint_and_their_union_is_the_campaign() {
    let isa = xstore_isas::find("q7").unwrap();
    let c = Campaign::new(isa, 5);
    let all: Vec<u64> = (0..50).collect();
    let whole = collect(&c, &all, 2);
    let mut union = Vec::new();
    for k in 1..=3 {
        let s = Shard::parse(&format!("{k}/3")).unwrap();
        let idx: Vec<u64> = all.iter().copied().filter(|&i| s.holds(i)).collect();
        union.extend(collect(&c, &idx, 1));
    }
    union.sort_by_key(|g| g.index);
    assert_eq!(union, whole);
    for bad in ["0/3", "4/3", "1/0", "x/2", "3"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
}

/// The property every generated program keeps: its scenario text loads and
/// runs to its own expectations; its run does what the generator meant;
/// the units before a deliberate stop pass `validate` where their bytes are
/// public; a faulting unit changes nothing (the program cut before it gives
/// the same writes and registers).
fn check_program(isa: &'static dyn Isa, g: &GenScenario) {
    let ctx = || format!("{}:\n{}", g.name, g.scenario);
    let (sc, found) = load_scenario(xstore_isas::all(), &g.scenario, &g.name)
        .unwrap_or_else(|d| panic!("{d}\n{}", ctx()));
    assert_eq!(found.name(), isa.name());
    let r = run_scenario(found, &sc, DEFAULT_CAP).unwrap_or_else(|d| panic!("{d}\n{}", ctx()));
    assert!(
        r.expect_failures.is_empty(),
        "{:?}\n{}",
        r.expect_failures,
        ctx()
    );
    let fault = r.exec.fault.as_ref();
    match &g.plan_intent {
        Intent::Complete => assert_eq!(r.exec.outcome, Outcome::Ok, "{fault:?}\n{}", ctx()),
        Intent::Fault { unit, kind } | Intent::Illegal { unit, kind, .. } => {
            let f = fault.unwrap_or_else(|| panic!("no fault\n{}", ctx()));
            assert_eq!(
                (f.instruction, f.kind.as_str()),
                (Some(*unit), *kind),
                "{}",
                ctx()
            );
        }
        Intent::Pending { unit } => {
            assert_eq!(r.exec.outcome, Outcome::Pending, "{}", ctx());
            assert_eq!(r.exec.executed, *unit, "{}", ctx());
        }
    }
    let stop = g.plan_intent.stop_unit().unwrap_or(usize::MAX);
    for u in g
        .golden
        .units
        .iter()
        .filter(|u| u.index < stop && !u.hex.is_empty())
    {
        let bytes = xstore_core::hex::decode(&u.hex).unwrap();
        let v = isa.validate(&bytes).unwrap();
        assert!(v.valid, "unit {} fails {:?}\n{}", u.index, v.failed, ctx());
    }
    if let (Intent::Fault { unit, .. } | Intent::Illegal { unit, .. }, Some(_)) =
        (&g.plan_intent, fault)
    {
        let text = replace_program(&g.scenario, &g.units[..*unit].join("\n"));
        let (sc, _) = load_scenario(xstore_isas::all(), &text, "cut").unwrap();
        let p = run_scenario(found, &sc, DEFAULT_CAP).unwrap();
        assert!(p.exec.fault.is_none(), "the cut program faults\n{}", ctx());
        assert_eq!(
            p.writes,
            r.writes,
            "unit {unit} faulted but wrote\n{}",
            ctx()
        );
        let regs = |e: &xstore_core::report::Exec| {
            e.regs
                .iter()
                .map(|x| (x.name.clone(), x.value.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            regs(&p.exec),
            regs(&r.exec),
            "unit {unit} changed registers\n{}",
            ctx()
        );
    }
}

/// The scenario text with its program replaced and its `[expect]` dropped.
fn replace_program(text: &str, program: &str) -> String {
    let start = text.find("program = \"\"\"\n").unwrap() + "program = \"\"\"\n".len();
    let end = start + text[start..].find("\"\"\"\n").unwrap();
    let head = &text[..start];
    let mut rest = text[end..].to_string();
    if let Some(e) = rest.find("\n[expect]") {
        rest.truncate(e + 1);
    }
    let sep = if program.is_empty() { "" } else { "\n" };
    format!("{head}{program}{sep}{rest}")
}

#[test]
fn every_generated_program_runs_as_meant() {
    for &isa in xstore_isas::all() {
        let c = Campaign::new(isa, 2026);
        for i in 0..400 {
            check_program(isa, &c.program(i).unwrap());
        }
    }
}

#[test]
fn the_default_configuration_prints_and_reads_back() {
    for &isa in xstore_isas::all() {
        let text = default_text(isa.gen_target());
        let cfg = Config::parse(isa.gen_target(), &text, "default.toml")
            .unwrap_or_else(|d| panic!("{d}\n{text}"));
        assert_eq!(
            cfg,
            Config::defaults(isa.verify().gen_spec()),
            "{}",
            isa.name()
        );
        for a in &isa.verify().gen_spec().axes {
            assert!(text.contains(&format!("[weights.{}]", a.name)));
        }
    }
}

#[test]
fn configuration_errors_name_the_key_and_where_it_is() {
    let isa = xstore_isas::find("q7").unwrap();
    let err = |t: &str| {
        Config::parse(isa.gen_target(), t, "c.toml")
            .unwrap_err()
            .to_string()
    };
    let e = err("[program]\nunitz = [1, 2]\n");
    assert!(
        e.starts_with("c.toml:2:1: error: unknown key `unitz` in [program]"),
        "{e}"
    );
    assert!(e.contains("did you mean `units`?"), "{e}");
    let e = err("[program]\nunits = [3, 2]\n");
    assert!(e.contains("`units` is [at least, at most]"), "{e}");
    let e = err("[program]\nfault_share = 1.5\n");
    assert!(e.contains("`fault_share` = 1.5 is not a share"), "{e}");
    let e = err("format = 2\n");
    assert!(e.contains("configuration format 2"), "{e}");
    let e = err("profile = \"nope\"\n");
    assert!(e.contains("unknown profile `nope`"), "{e}");
    let e = err("[weights]\nnonsense = {}\n");
    assert!(e.contains("unknown key `nonsense` in [weights]"), "{e}");
    let e = err("profile = \"flat32\"\n[[memory]]\nbase = 0\nsize = 16\n");
    assert!(e.contains("either `profile` or `[[memory]]`"), "{e}");
    let cfg = Config::parse(
        isa.gen_target(),
        "[program]\nunits = [2, 2]\nfault_share = 0\nillegal_share = 0\n",
        "c",
    )
    .unwrap();
    let c = Campaign {
        isa,
        config: cfg,
        seed: 1,
    };
    for i in 0..20 {
        let g = c.program(i).unwrap();
        assert_eq!(g.plan_intent, Intent::Complete);
        assert!(g.units.len() >= 2, "{}", g.scenario);
    }
}

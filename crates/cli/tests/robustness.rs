//! Bad input never panics: random bytes into every decoder, validator and
//! `explain`, random text into every assembler and the scenario loader, and
//! programs built from each ISA's own instructions, mutated, through the
//! runner and the lint. Each must return a value or a diagnostic, and the
//! generated programs must mostly execute (the test counts what they do).

use proptest::prelude::*;
use xstore_core::isa::{run_scenario, Isa};
use xstore_core::scenario::Scenario;

fn isas() -> [&'static dyn Isa; 3] {
    [xstore_neuron::isa(), xstore_pto::isa(), xstore_q7::isa()]
}

fn keys(name: &str) -> Option<&'static [&'static str]> {
    isas()
        .into_iter()
        .find(|i| i.name() == name)
        .map(|i| i.scenario_keys())
}

fn load(text: &str) -> Result<Scenario, xstore_core::Diagnostic> {
    Scenario::parse(text, "fuzz.toml", &["neuron", "pto", "q7"], &keys)
}

/// Words and punctuation the three assemblers use, to reach deeper than noise.
fn asm_text() -> impl Strategy<Value = String> {
    let tokens = prop::sample::select(vec![
        "tensor_store.u8",
        "tensor_load.u64",
        "tensor_store.fp32",
        "[0x1000]",
        "num_elem=(4,2)",
        "step_elem=(1,-8)",
        "imm=(1,2,3)",
        "reg=(r4,r5)",
        "wait=",
        "raw",
        "BSTART.TSTORE",
        "U8",
        "U4X2",
        "B.DIM",
        "LB0",
        "C.B.DIMI",
        "B.IOR",
        "a0",
        "a1",
        "B.IOT",
        "T#1",
        "T1",
        "B.IOS",
        "S7",
        "mask=1111",
        "mask=0011",
        "last",
        "B.SUBVIEW",
        "B.DATR",
        "BSTOP",
        "C.BSTOP",
        "->LB1",
        "IVP_SV2NX8_IP",
        "IVP_SA2NX8_IP",
        "IVP_SAPOS_FP",
        "ivp_zalign",
        "IVP_SBN_I",
        "v0",
        "vb3",
        "u1",
        "a3",
        "64",
        "-64",
        "0x7fffffff",
        "99999999999999999999",
        "{",
        "}",
        ";",
        ",",
        "(",
        ")",
        "=",
        "\n",
        " ",
        "#",
        "é",
    ]);
    prop::collection::vec(tokens, 0..24).prop_map(|t| t.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn decoders_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        for isa in isas() {
            let _ = isa.disasm(&bytes);
            let _ = isa.validate(&bytes);
            let _ = isa.explain(&xstore_core::hex::encode(&bytes));
        }
    }

    #[test]
    fn structured_stream_decoders_never_panic(
        words in prop::collection::vec(any::<u32>(), 0..24),
        op in prop::sample::select(vec![0xa5u8, 0xaa, 0xab, 0xcd, 0xce, 0x0f, 0x1f]),
    ) {
        // Valid-looking heads with random bodies reach the field decoders.
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if !bytes.is_empty() {
            bytes[0] = op;
        }
        bytes.resize(bytes.len().div_ceil(64).max(1) * 64, 0);
        for isa in isas() {
            let _ = isa.disasm(&bytes);
            let _ = isa.validate(&bytes);
        }
    }

    #[test]
    fn streaming_forms_agree_with_the_collecting_ones(
        words in prop::collection::vec(any::<u32>(), 0..48),
        op in prop::sample::select(vec![0xabu8, 0xaa, 0xcd, 0x81, 0x1f, 0x0f, 0x00]),
        text in asm_text(),
    ) {
        let mut bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for chunk in bytes.chunks_mut(64) {
            chunk[0] = op;
            if chunk.len() > 1 {
                chunk[1] = 0x10;
            }
        }
        for isa in isas() {
            let mut checks = Vec::new();
            let each = isa.validate_each(&bytes, &mut |c| checks.push(c.clone()));
            match isa.validate(&bytes) {
                Ok(v) => {
                    prop_assert!(each.is_ok());
                    prop_assert_eq!(&checks, &v.checks);
                    let again = xstore_core::report::Validation::from_checks(checks);
                    prop_assert_eq!(again, v);
                }
                Err(e) => {
                    prop_assert_eq!(each.unwrap_err(), e);
                    prop_assert!(checks.is_empty(), "no check before an error");
                }
            }
            let mut lines = Vec::new();
            let each = isa.disasm_each(&bytes, &mut |l| lines.push(l.to_string()));
            match isa.disasm(&bytes) {
                Ok(v) => prop_assert_eq!(lines, v),
                Err(e) => {
                    prop_assert_eq!(each.unwrap_err(), e);
                    prop_assert!(lines.is_empty());
                }
            }
            let mut words = Vec::new();
            let each = isa.asm_each(&text, &mut |w| words.push(w.to_vec()));
            match isa.asm(&text) {
                Ok(v) => prop_assert_eq!(words, v),
                Err(e) => {
                    prop_assert_eq!(each.unwrap_err(), e);
                    prop_assert!(words.is_empty());
                }
            }
        }
    }

    #[test]
    fn assemblers_never_panic(text in asm_text(), noise in ".{0,40}") {
        for isa in isas() {
            let _ = isa.asm(&text);
            let _ = isa.asm(&noise);
            let _ = isa.explain(&text);
        }
    }

    #[test]
    fn the_scenario_loader_never_panics(text in ".{0,200}") {
        let _ = load(&text);
    }
}

/// Every bundled example of `isa` as (scenario text, its path).
fn seeds(isa: &dyn Isa) -> Vec<(String, String)> {
    isa.examples()
        .iter()
        .map(|ex| (ex.text.to_string(), ex.path.to_string()))
        .collect()
}

/// The program (`program` or `program_hex`) of a scenario text: key, value, span.
fn program_of(text: &str) -> (String, String, std::ops::Range<usize>) {
    let doc = xstore_core::scenario::parse_document(text).expect("examples parse");
    let (k, it) = doc
        .entries
        .iter()
        .find(|(k, _)| k.name == "program" || k.name == "program_hex")
        .expect("examples have a program");
    let v = it.as_str("program").expect("a string").to_string();
    (k.name.clone(), v, it.span.clone())
}

const NUMBERS: &[&str] = &[
    "0", "1", "2", "3", "4", "7", "8", "16", "31", "32", "63", "64", "-64", "128", "448", "-512",
    "0x100", "0x1000", "0xfff", "0xffff", "65535",
];

/// A program built from the ISA's own instruction lines (its examples', and
/// their canonical forms through the ISA's assembler and printer), mutated:
/// lines repeated, inserted from other examples, dropped, swapped, and numbers
/// replaced. Hex programs get digits changed.
fn mutate(
    key: &str,
    program: &str,
    pool: &[String],
    rng: &mut xstore_devkit::bench::XorShift,
) -> String {
    let mut pick = |n: usize| (rng.next_u64() % n.max(1) as u64) as usize;
    if key == "program_hex" {
        let mut digits: Vec<char> = program.chars().collect();
        for _ in 0..pick(3) {
            let i = pick(digits.len());
            if digits[i].is_ascii_hexdigit() {
                digits[i] = char::from_digit(pick(16) as u32, 16).unwrap();
            }
        }
        return digits.into_iter().collect();
    }
    let mut lines: Vec<String> = program
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect();
    for _ in 0..pick(3) {
        if lines.is_empty() {
            break;
        }
        let i = pick(lines.len());
        match pick(5) {
            0 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            // After the first line, so a seed's own first instruction runs.
            1 if !pool.is_empty() => lines.insert(i + 1, pool[pick(pool.len())].clone()),
            2 if lines.len() > 1 => {
                lines.remove(i);
            }
            3 => {
                let j = pick(lines.len());
                lines.swap(i, j);
            }
            _ => {
                // Replace one number of the line.
                let l = &lines[i];
                let runs: Vec<(usize, usize)> = l
                    .char_indices()
                    .filter(|&(k, c)| {
                        c.is_ascii_digit()
                            && (k == 0 || !l.as_bytes()[k - 1].is_ascii_alphanumeric())
                    })
                    .map(|(k, _)| {
                        let end = l[k..]
                            .find(|c: char| !c.is_ascii_alphanumeric())
                            .map_or(l.len(), |e| k + e);
                        (k, end)
                    })
                    .collect();
                if !runs.is_empty() {
                    let (a, b) = runs[pick(runs.len())];
                    let n = NUMBERS[pick(NUMBERS.len())];
                    lines[i] = format!("{}{n}{}", &l[..a], &l[b..]);
                }
            }
        }
    }
    lines.join("\n")
}

/// The program lines of an ISA's examples (an instruction, a Q7 bundle, a PTO
/// block), each also in the canonical text the ISA's assembler and printer
/// give it, on one line (a PTO block's words joined by `;`).
fn line_pool(isa: &dyn Isa) -> Vec<String> {
    let mut pool = Vec::new();
    for (text, _) in seeds(isa) {
        let (key, program, _) = program_of(&text);
        if key == "program_hex" {
            let bytes = xstore_core::hex::decode(&program).unwrap_or_default();
            pool.extend(isa.disasm(&bytes).unwrap_or_default());
            continue;
        }
        for l in program.lines().filter(|l| !l.trim().is_empty()) {
            pool.push(l.to_string());
            let canonical = isa
                .asm(l)
                .and_then(|w| isa.disasm(&w.concat()))
                .map(|t| t.join("; "));
            if let Ok(c) = canonical {
                pool.push(c);
            }
        }
    }
    pool
}

#[test]
fn random_programs_run_or_fail_cleanly() {
    let mut rng = xstore_devkit::bench::XorShift(0x243f_6a88_85a3_08d3);
    for isa in isas() {
        let seeds = seeds(isa);
        // The seeds whose program executes as it is (the others fault or wait
        // at their first instruction, by design); three cases in four start
        // from one of them.
        let running: Vec<&(String, String)> = seeds
            .iter()
            .filter(|(text, _)| {
                let sc = load(text).expect("examples load");
                run_scenario(isa, &sc, 1 << 24).is_ok_and(|r| r.exec.executed > 0)
            })
            .collect();
        assert!(!running.is_empty(), "{}", isa.name());
        let pool = line_pool(isa);
        let (mut cases, mut ran, mut executed) = (0usize, 0usize, 0usize);
        for case in 0..600 {
            let r = rng.next_u64() as usize;
            let (text, _) = if case % 4 == 3 {
                &seeds[r % seeds.len()]
            } else {
                running[r % running.len()]
            };
            let (key, program, span) = program_of(text);
            let new = mutate(&key, &program, &pool, &mut rng);
            let scenario = format!(
                "{}'''\n{new}\n'''{}",
                &text[..span.start],
                &text[span.end..]
            );
            cases += 1;
            let Ok(sc) = load(&scenario) else {
                continue;
            };
            if let Ok(r) = run_scenario(isa, &sc, 1 << 24) {
                ran += usize::from(r.exec.executed > 0);
                executed += r.exec.executed;
            }
            if let Ok(mem) = xstore_core::isa::build_memory(isa, &sc, 1 << 24) {
                let _ = isa.lint(&sc, &mem);
            }
        }
        eprintln!(
            "{}: {ran} of {cases} generated programs executed instructions ({executed} in all)",
            isa.name()
        );
        // Most generated programs execute instructions: the runner is reached.
        assert!(
            ran * 2 >= cases && executed >= ran,
            "{}: {ran} of {cases} programs executed an instruction ({executed} in all)",
            isa.name()
        );
    }
}

/// `asm_each` reports an error on a late line before it hands out a single
/// line: the lines before it assemble, and none of them is emitted.
#[test]
fn asm_each_emits_nothing_before_an_error_on_a_later_line() {
    for isa in isas() {
        let good = isa.info().sample;
        assert!(isa.asm(good).is_ok(), "{}", isa.name());
        let text = format!("{good}\n{good}\nnot_a_mnemonic x\n");
        let mut emitted = 0;
        let e = isa
            .asm_each(&text, &mut |_| emitted += 1)
            .expect_err("the last line is bad");
        assert_eq!(emitted, 0, "{}: {e}", isa.name());
        assert_eq!(isa.asm(&text).unwrap_err(), e, "{}", isa.name());
    }
}

//! The seed corpora (`fuzz/corpus/<target>/seed-*`) and dictionaries
//! (`fuzz/dict/*.dict`) are derived from the bundled examples and the golden
//! vector files; this test checks they are up to date, and
//! `XSTORE_BLESS=1 cargo test -p xstore-fuzz --test corpus` rewrites them.
//! Files a fuzz campaign adds beside the seeds are left alone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use xstore_core::hex;
use xstore_devkit::bench::XorShift;
use xstore_fuzz::{isas, targets};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn program_of(text: &str) -> Option<String> {
    let doc: toml::Table = text.parse().ok()?;
    doc.get("program")?.as_str().map(str::to_string)
}

/// The golden vector file of an ISA: its `hex | text | verdict` lines.
fn golden(isa: &str) -> Vec<(Vec<u8>, String)> {
    let path = root().join("tests/golden").join(format!("{isa}.txt"));
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .filter(|l| !l.starts_with('#') && l.contains('|'))
        .filter_map(|l| {
            let mut parts = l.split('|').map(str::trim);
            let bytes = hex::decode(parts.next()?).ok()?;
            Some((bytes, parts.next()?.to_string()))
        })
        .collect()
}

/// Every seed: (target, file name, contents).
fn seeds() -> Vec<(String, String, Vec<u8>)> {
    let mut out = Vec::new();
    for isa in isas() {
        let name = isa.name();
        for ex in isa.examples() {
            let stem = Path::new(ex.path)
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .to_string();
            out.push((
                "scenario".into(),
                format!("seed-{name}-{stem}"),
                ex.text.as_bytes().to_vec(),
            ));
            if let Some(p) = program_of(ex.text) {
                out.push((
                    format!("{name}_asm"),
                    format!("seed-{stem}"),
                    p.as_bytes().to_vec(),
                ));
                if let Ok(lines) = isa.asm(&p) {
                    out.push((
                        format!("{name}_decode"),
                        format!("seed-{stem}"),
                        lines.concat(),
                    ));
                }
            }
        }
        for (i, (bytes, text)) in golden(name).into_iter().enumerate() {
            out.push((
                format!("{name}_decode"),
                format!("seed-golden-{i:03}"),
                bytes,
            ));
            out.push((
                format!("{name}_asm"),
                format!("seed-golden-{i:03}"),
                text.into_bytes(),
            ));
        }
    }
    // Whole programs: each ISA's golden vectors one after the other, so the
    // decoders start from streams of every form rather than one unit.
    for isa in isas() {
        let all: Vec<u8> = golden(isa.name())
            .into_iter()
            .flat_map(|(b, _)| b)
            .collect();
        if !all.is_empty() {
            out.push((
                format!("{}_decode", isa.name()),
                "seed-golden-all".into(),
                all,
            ));
        }
    }
    // Q7: the public bundle with every value of each operand field (imm4,
    // the AR base, the vec source), as one stream.
    let variants: Vec<u8> = q7_variants().into_iter().flatten().collect();
    out.push(("q7_decode".into(), "seed-bundle-fields".into(), variants));
    // Q7's only bundle with a public encoding, and a bundle it does not know.
    for (i, h) in ["1f03049c945e9c02", "8f03049c945e9c02", "0f03049c945e9c03"]
        .iter()
        .enumerate()
    {
        out.push((
            "q7_decode".into(),
            format!("seed-bundle-{i}"),
            hex::decode(h).unwrap(),
        ));
    }
    // The structured targets read their bytes as choices: random seeds.
    for t in ["neuron_exec", "pto_exec", "q7_exec", "q7_valign"] {
        let mut rng = XorShift(0x5eed_0000 + t.len() as u64);
        for k in 0..16 {
            let len = 64 + (rng.next_u64() % 512) as usize;
            let bytes = (0..len).map(|_| rng.next_u64() as u8).collect();
            out.push((t.to_string(), format!("seed-{k:02}"), bytes));
        }
    }
    out
}

/// The public Q7 bundle (`IVP_SV2NX8_IP`) with each operand field set to
/// each of its values in turn, the others zero.
fn q7_variants() -> Vec<[u8; 8]> {
    use xstore_q7::tables::encoding::{FieldRole, SV2NX8_IP_FIELDS, SV2NX8_IP_TEMPLATE};
    let t = u64::from_le_bytes(SV2NX8_IP_TEMPLATE);
    let mut out = Vec::new();
    for f in SV2NX8_IP_FIELDS
        .iter()
        .filter(|f| f.role != FieldRole::Fixed)
    {
        for v in 0..1u64 << f.bits.width() {
            out.push(f.bits.set(t, v).to_le_bytes());
        }
    }
    out
}

/// A libFuzzer dictionary entry of raw bytes.
fn bytes_entry(b: &[u8]) -> String {
    let esc: String = b.iter().map(|x| format!("\\x{x:02x}")).collect();
    format!("\"{esc}\"\n")
}

/// The decoders' dictionaries: each ISA's opcode templates as bytes in
/// memory order (Neuron: the opcode bytes with the default header; PTO: each
/// command format's fixed bits; Q7: the public bundle's template and every
/// selector word of the roster).
fn decode_dictionaries() -> Vec<(String, String)> {
    let mut neuron = BTreeSet::new();
    for op in xstore_neuron::tables::OPCODES {
        neuron.insert(vec![op.code, xstore_neuron::tables::WORD_LEN]);
    }
    let mut pto = BTreeSet::new();
    for f in xstore_pto::tables::FORMATS {
        pto.insert(f.matches().to_le_bytes()[..(f.width / 8) as usize].to_vec());
    }
    let mut q7 = BTreeSet::new();
    q7.insert(xstore_q7::tables::encoding::SV2NX8_IP_TEMPLATE.to_vec());
    for sel in xstore_q7::tables::roster::SELECTORS {
        q7.insert(sel.word0.to_le_bytes().to_vec());
    }
    [("neuron", neuron), ("pto", pto), ("q7", q7)]
        .into_iter()
        .map(|(isa, set)| {
            let text: String = set.iter().map(|b| bytes_entry(b)).collect();
            (format!("{isa}_decode.dict"), text)
        })
        .collect()
}

/// Dictionary entries: the words of the example programs and the scenario keys.
fn dictionaries() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut keys = BTreeSet::new();
    for isa in isas() {
        let mut words = BTreeSet::new();
        for ex in isa.examples() {
            for line in ex.text.lines() {
                if let Some((k, _)) = line.split_once('=') {
                    let k = k.trim().trim_matches('"');
                    if !k.is_empty() && !k.contains(' ') {
                        keys.insert(k.to_string());
                    }
                }
                if let Some(t) = line.trim().strip_prefix('[') {
                    keys.insert(format!("[{t}"));
                }
            }
            if let Some(p) = program_of(ex.text) {
                for w in p.split(|c: char| c.is_whitespace() || c == ',' || c == ';') {
                    if !w.is_empty() && w.len() < 40 {
                        words.insert(w.to_string());
                    }
                }
            }
        }
        let dict: String = words
            .iter()
            .map(|w| format!("\"{}\"\n", w.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        out.push((format!("{}.dict", isa.name()), dict));
    }
    let dict: String = keys
        .iter()
        .map(|w| format!("\"{}\"\n", w.replace('\\', "\\\\").replace('"', "\\\"")))
        .collect();
    out.push(("scenario.dict".into(), dict));
    out.extend(decode_dictionaries());
    out
}

#[test]
fn seed_corpora_and_dictionaries_are_up_to_date() {
    let bless = std::env::var_os("XSTORE_BLESS").is_some();
    let mut stale = Vec::new();
    let corpus = root().join("fuzz/corpus");
    for (target, name, bytes) in seeds() {
        assert!(targets().iter().any(|t| t.name == *target), "{target}");
        let path = corpus.join(&target).join(&name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        } else if std::fs::read(&path).ok().as_deref() != Some(&bytes[..]) {
            stale.push(path.display().to_string());
        }
    }
    for (name, text) in dictionaries() {
        let path = root().join("fuzz/dict").join(name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &text).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(&text[..]) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "{} stale fuzz seed(s), the first: {:?} (regenerate with XSTORE_BLESS=1 cargo test -p \
         xstore-fuzz --test corpus)",
        stale.len(),
        &stale[..stale.len().min(3)]
    );
}

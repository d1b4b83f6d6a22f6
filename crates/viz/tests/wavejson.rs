//! WaveJSON diagrams of explained instructions: the PTO source page's own
//! diagram of `BSTART.TSTORE`, and for random instructions of each ISA that
//! every bit is drawn exactly once, by the field that covers it or as unknown.

use proptest::prelude::*;
use serde_json::{json, Value};
use xstore_core::isa::Isa;
use xstore_core::report::{Explanation, SpanKind};
use xstore_viz::wave::{diagram_bits, UNKNOWN_TYPE};
use xstore_viz::{reg_svg, wavejson};

/// The diagram pto-spec 0.58.5 ships on its TSTORE page for the
/// `BSTART.TSTORE` encoding (DataType in bits 31:27 over the 27-bit constant
/// of the TLSU block header with function 1), carried over as a fact.
fn page_diagram() -> Value {
    json!({
        "reg": [
            {"bits": 27, "name": "27'b000000100010001000110000001"},
            {"bits": 5, "name": "DataType"}
        ],
        "config": {"bits": 32, "fontsize": 13, "hspace": 900, "lanes": 1, "offset": 0}
    })
}

/// Whether every key of `want` is in `got` with the same value (objects
/// compared key by key, arrays element by element and of equal length).
fn covers(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => w
            .iter()
            .all(|(k, v)| g.get(k).is_some_and(|x| covers(v, x))),
        (Value::Array(w), Value::Array(g)) => {
            w.len() == g.len() && w.iter().zip(g).all(|(a, b)| covers(a, b))
        }
        _ => want == got,
    }
}

#[test]
fn bstart_tstore_matches_the_page_diagram() {
    // Every data type gives the page's lanes; ours add the value as `attr`.
    for dt in ["U8", "FP16", "S32", "E2M1X2"] {
        let ex = xstore_pto::isa()
            .explain(&format!("BSTART.TSTORE {dt}"))
            .unwrap();
        assert_eq!(ex.len(), 1);
        let d = wavejson(&ex[0]);
        assert!(covers(&page_diagram(), &d), "{dt}: {d:#}");
        // The only key beyond the page's on a lane is `attr`.
        for lane in d["reg"].as_array().unwrap() {
            for k in lane.as_object().unwrap().keys() {
                assert!(["bits", "name", "attr"].contains(&k.as_str()), "{k}");
            }
        }
    }
    let d = wavejson(&xstore_pto::isa().explain("811111d8").unwrap()[0]);
    assert_eq!(d["reg"][1]["attr"], "0x1b"); // U8 is DataType 27
    assert_eq!(d["reg"][0]["attr"], "zero, Function, opcode");
    // A changed constant bit would not match.
    let mut wrong = page_diagram();
    wrong["reg"][0]["name"] = json!("27'b000000100010001000110000011");
    assert!(!covers(&wrong, &d));
}

#[test]
fn lanes_follow_the_formats_width() {
    let cfg = |isa: &dyn Isa, arg: &str| {
        let d = wavejson(&isa.explain(arg).unwrap()[0]);
        (d["config"]["bits"].clone(), d["config"]["lanes"].clone())
    };
    let neuron = "ab100000000000000000000005010402001000000000000001000000080000000100020003000400050006000700080000000000000000000000000000000000";
    assert_eq!(cfg(xstore_neuron::isa(), neuron), (json!(512), json!(16)));
    assert_eq!(
        cfg(xstore_q7::isa(), "1f03049c945e9c02"),
        (json!(64), json!(2))
    );
    assert_eq!(cfg(xstore_pto::isa(), "0000"), (json!(16), json!(1)));
    // A bare mnemonic has no bytes: the diagram covers its spans (Neuron's
    // format) or nothing (a Q7 mnemonic has no bit ranges).
    assert_eq!(cfg(xstore_neuron::isa(), "tensor_store").0, json!(512));
    let d = wavejson(&xstore_q7::isa().explain("IVP_SAV2NX8_XP").unwrap()[0]);
    assert_eq!(d["reg"], json!([]));
}

/// Check a diagram against its explanation: lanes sum to the width, every
/// field with a span is drawn once at its bits (a value field by its name,
/// a constant inside a merged lane), and every other bit is in an unknown
/// lane. Returns a description of the first problem.
fn check(ex: &Explanation, d: &Value) -> Result<(), String> {
    let width = diagram_bits(ex);
    let reg = d["reg"].as_array().ok_or("no reg")?;
    let mut owner: Vec<Option<usize>> = vec![None; width as usize];
    let mut at = 0u32;
    for (li, lane) in reg.iter().enumerate() {
        let w = lane["bits"].as_u64().ok_or("lane without bits")? as u32;
        if w == 0 {
            return Err(format!("lane {li} is empty"));
        }
        for b in at..at + w {
            *owner
                .get_mut(b as usize)
                .ok_or(format!("lane {li} past the width"))? = Some(li);
        }
        at += w;
    }
    if at != width || d["config"]["bits"] != json!(width) {
        return Err(format!("lanes sum to {at}, width {width}"));
    }
    let mut covered = vec![false; width as usize];
    for f in &ex.fields {
        let Some(s) = f.span else { continue };
        let lane = owner[s.lsb as usize].ok_or("bit without lane")?;
        let l = &reg[lane];
        for b in s.lsb..s.end() {
            if covered[b as usize] {
                return Err(format!("{} overlaps at bit {b}", f.name));
            }
            covered[b as usize] = true;
            if owner[b as usize] != Some(lane) {
                return Err(format!("{} is split over lanes", f.name));
            }
        }
        match s.kind {
            SpanKind::Constant => {
                let names = l["attr"].as_str().unwrap_or("");
                if !names.split(", ").any(|n| n == f.name)
                    || !l["name"].as_str().unwrap().contains("'b")
                {
                    return Err(format!("constant {} not in its lane {l}", f.name));
                }
            }
            SpanKind::Value | SpanKind::Unknown => {
                if l["name"] != json!(f.name)
                    || l["bits"] != json!(s.width)
                    || l["attr"] != json!(f.raw)
                {
                    return Err(format!("{} drawn as {l}", f.name));
                }
                if (s.kind == SpanKind::Unknown) != (l["type"] == json!(UNKNOWN_TYPE)) {
                    return Err(format!("{}: type {}", f.name, l["type"]));
                }
            }
        }
    }
    for (b, c) in covered.iter().enumerate() {
        let l = &reg[owner[b].unwrap()];
        if !c && (l["name"] != json!("?") || l["type"] != json!(UNKNOWN_TYPE)) {
            return Err(format!("uncovered bit {b} drawn as {l}"));
        }
    }
    Ok(())
}

/// The explanations of `bytes` by `isa` (none when they do not decode).
fn explained(isa: &dyn Isa, bytes: &[u8]) -> Vec<Explanation> {
    isa.explain(&xstore_core::hex::encode(bytes))
        .unwrap_or_default()
}

/// Bytes that decode more often than random ones: a random instruction of
/// each ISA's own golden lines with some bytes changed.
fn mutate(seed: &[u8], edits: &[(usize, u8)]) -> Vec<u8> {
    let mut b = seed.to_vec();
    for &(i, v) in edits {
        let n = b.len();
        b[i % n] = v;
    }
    b
}

fn seeds(isa: &dyn Isa, lines: &[&str]) -> Vec<Vec<u8>> {
    lines.iter().map(|l| isa.asm(l).unwrap().concat()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_bit_is_drawn_once(
        which in 0usize..3,
        pick in 0usize..64,
        edits in proptest::collection::vec((0usize..64, any::<u8>()), 0..4),
    ) {
        let (isa, lines): (&dyn Isa, &[&str]) = match which {
            0 => (xstore_neuron::isa(), &[
                "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)",
                "tensor_store.u64 [0x1000], num_elem=(2,1), reg=(r2,r4)",
                "tensor_load.u32 [0x2000], num_elem=(3,1), reg=(r1,r2,r3)",
            ]),
            1 => (xstore_pto::isa(), &[
                "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 8; B.DIM LB2, 64; B.IOR a0, a1; B.IOT T1, mask=1111, last; BSTOP",
                "BSTART.TSTORE FP16; B.IOS S7, mask=1100; B.SUBVIEW 0, a0, 0, 7; BSTOP",
            ]),
            _ => (xstore_q7::isa(), &["IVP_SV2NX8_IP v0, a3, 64", "IVP_SV2NX8_IP v31, a15, -448"]),
        };
        let seeds = seeds(isa, lines);
        let seed = &seeds[pick % seeds.len()];
        // The seed always explains; its mutation when it still decodes.
        let unchanged = explained(isa, seed);
        prop_assert!(!unchanged.is_empty());
        let bytes = mutate(seed, &edits);
        for ex in unchanged.into_iter().chain(explained(isa, &bytes)) {
            let d = wavejson(&ex);
            prop_assert!(check(&ex, &d).is_ok(), "{}: {:?}\n{d:#}", ex.title, check(&ex, &d));
            let svg = reg_svg(&d);
            prop_assert!(roxmltree::Document::parse(&svg).is_ok());
        }
    }
}

#[test]
fn the_generator_reaches_every_isa_and_kind() {
    // The seeds decode, and their explanations hold value and constant spans.
    let mut kinds = std::collections::BTreeSet::new();
    for (isa, line) in [
        (
            xstore_neuron::isa(),
            "tensor_store.u8 [0x100], num_elem=(8,1), imm=(1,2,3,4,5,6,7,8)",
        ),
        (xstore_pto::isa(), "BSTART.TSTORE U8; BSTOP"),
        (xstore_q7::isa(), "IVP_SV2NX8_IP v0, a3, 64"),
    ] {
        let ex = explained(isa, &isa.asm(line).unwrap().concat());
        assert!(!ex.is_empty());
        for e in &ex {
            check(e, &wavejson(e)).unwrap();
            kinds.extend(
                e.fields
                    .iter()
                    .filter_map(|f| f.span)
                    .map(|s| format!("{:?}", s.kind)),
            );
        }
    }
    // An unknown Q7 bundle and a Neuron opcode outside the model: unknown lanes.
    let q = explained(xstore_q7::isa(), &[0x0f, 1, 2, 3, 4, 5, 6, 7]);
    check(&q[0], &wavejson(&q[0])).unwrap();
    kinds.extend(
        q[0].fields
            .iter()
            .filter_map(|f| f.span)
            .map(|s| format!("{:?}", s.kind)),
    );
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["Constant", "Unknown", "Value"]
    );
}

#[test]
fn svg_is_standalone_xml() {
    for (isa, arg) in [
        (xstore_pto::isa(), "811111d8 43000004 135e0800 01000000"),
        (xstore_q7::isa(), "1f03049c945e9c02"),
        (xstore_neuron::isa(), "ab100000000000000000000005010402001000000000000001000000080000000100020003000400050006000700080000000000000000000000000000000000"),
    ] {
        let ds: Vec<Value> = isa.explain(arg).unwrap().iter().map(wavejson).collect();
        let svg = reg_svg(&Value::Array(ds));
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        assert_eq!(root.tag_name().namespace(), Some("http://www.w3.org/2000/svg"));
        // Only the namespace names a URL; nothing is loaded from outside.
        assert_eq!(svg.matches("http").count(), 1, "{svg}");
        assert!(!svg.contains("href"));
        // The field names are there as text.
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        assert!(texts.iter().any(|t| t.contains("opcode") || t.contains("ar_base")), "{texts:?}");
    }
    let d = wavejson(&xstore_pto::isa().explain("811111d8").unwrap()[0]);
    let svg = reg_svg(&d);
    assert!(
        svg.contains(">DataType<") && svg.contains(">0x1b<"),
        "{svg}"
    );
    assert!(svg.contains("27&apos;b000000100010001000110000001"));
}

/// A constant that crosses a lane shows, in each lane, the bits that lie
/// there: the Q7 bundle's 38-bit opcode constant (bits 63:26) reads as its
/// low 6 bits in lane 0 and its high 32 in lane 1.
#[test]
fn a_constant_across_lanes_shows_each_lanes_bits() {
    let q7 = xstore_q7::isa();
    let bytes = q7
        .asm("{ IVP_SV2NX8_IP v0, a3, 64 ; nop }")
        .unwrap()
        .concat();
    let ex = explained(q7, &bytes);
    let d = wavejson(&ex[0]);
    let whole = d["reg"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["bits"] == 38)
        .expect("the 38-bit constant")["name"]
        .as_str()
        .unwrap()
        .to_string();
    let digits = whole.strip_prefix("38'b").unwrap();
    let svg = reg_svg(&d);
    let drawn = |s: &str| format!(">{}</text>", s.replace('\'', "&apos;"));
    assert!(
        svg.contains(&drawn(&format!("6'b{}", &digits[32..]))),
        "{svg}"
    );
    assert!(
        svg.contains(&drawn(&format!("32'b{}", &digits[..32]))),
        "{svg}"
    );
    // The whole constant stays in the piece's title (its tooltip).
    assert!(svg.contains(&whole.replace('\'', "&apos;")));
}

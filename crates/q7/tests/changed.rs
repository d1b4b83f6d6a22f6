//! A step's register changes: `Registers::changed` names exactly the
//! registers set to a new value, in report order, each with its value now.

use proptest::prelude::*;
use xstore_core::report::RegValue;
use xstore_core::step::Registers;
use xstore_q7::Machine;

/// A value for register `name` from `seed`: an integer for ARs and vbools,
/// 64 bytes of hex for vec and valign registers.
fn value_for(name: &str, seed: u64) -> RegValue {
    if name.starts_with('a') {
        RegValue::Int(seed & 0xffff_ffff)
    } else if name.starts_with("vb") {
        RegValue::Int(seed)
    } else {
        let bytes: Vec<u8> = (0..64).map(|k| (seed >> (k % 8 * 8)) as u8 ^ k).collect();
        RegValue::Hex(xstore_core::hex::encode(&bytes))
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn changed_names_exactly_the_registers_given_new_values(
        sets in prop::collection::vec((0usize..68, any::<u64>(), any::<bool>()), 0..10),
    ) {
        let names: Vec<String> = Machine::reg_names().collect();
        let mut before = Machine::default();
        for (k, (r, seed, _)) in sets.iter().enumerate() {
            // Some registers start non-zero, so that setting one back to zero is a change.
            if k % 3 == 0 {
                before.set_reg(&names[*r], value_for(&names[*r], seed.rotate_left(7))).unwrap();
            }
        }
        let mut after = before.clone();
        for (r, seed, same) in &sets {
            let v = if *same { before.reg(&names[*r]).unwrap() } else { value_for(&names[*r], *seed) };
            after.set_reg(&names[*r], v).unwrap();
        }
        let mut out = Vec::new();
        after.changed(&before, &mut out);
        let expected: Vec<(String, RegValue)> = names
            .iter()
            .filter(|n| after.reg(n) != before.reg(n))
            .map(|n| (n.clone(), after.reg(n).unwrap()))
            .collect();
        let got: Vec<(String, RegValue)> = out.iter().map(|r| (r.name.clone(), r.value.clone())).collect();
        prop_assert_eq!(got, expected);
        prop_assert!(out.iter().all(|r| r.changed));
    }
}

/// Each register's name parses back to it, and spells its file and number.
#[test]
fn every_register_name_parses_back() {
    use xstore_q7::tables::regs::Reg;
    let all: Vec<Reg> = Reg::all().collect();
    assert_eq!(all.len(), 68);
    for r in all {
        assert_eq!(Reg::parse(&r.name()), Some(r), "{}", r.name());
        assert_eq!(r.name(), format!("{}{}", r.file().def().prefix, r.index()));
    }
}

/// A step that gives every register of a file a new value reports each of
/// them (the comparison of whole files must not pass a file over when all
/// of it changed).
#[test]
fn a_file_changed_whole_is_reported_register_by_register() {
    let names: Vec<String> = Machine::reg_names().collect();
    for prefix in ["a", "v", "vb", "u"] {
        let of_file: Vec<&String> = names
            .iter()
            .filter(|n| {
                n.strip_prefix(prefix)
                    .is_some_and(|d| d.bytes().all(|b| b.is_ascii_digit()))
            })
            .collect();
        let before = Machine::default();
        let mut after = before.clone();
        for (k, n) in of_file.iter().enumerate() {
            after
                .set_reg(n, value_for(n, 0x1234_5678 + k as u64))
                .unwrap();
        }
        let mut out = Vec::new();
        after.changed(&before, &mut out);
        let got: Vec<&str> = out.iter().map(|r| r.name.as_str()).collect();
        let want: Vec<&str> = of_file.iter().map(|n| n.as_str()).collect();
        assert_eq!(got, want, "file {prefix}");
    }
}

/// A valign register compares by what it shows: its image and, while bytes
/// are pending, their span. Bytes appended that equal the image's zeros
/// change only the span, and that is a change; an empty register's image
/// alone decides.
#[test]
fn a_valign_register_whose_pending_span_grows_has_changed() {
    use xstore_q7::Valign;
    let mut before = Machine::default();
    before.set_valign(1, Valign::pending(0x1000, 5, &[0, 0, 0]).unwrap());
    let mut after = before.clone();
    after.set_valign(1, Valign::pending(0x1000, 5, &[0, 0, 0, 0]).unwrap());
    assert_eq!(after.valign(1).image(), before.valign(1).image());
    let mut out = Vec::new();
    after.changed(&before, &mut out);
    let got: Vec<&str> = out.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(got, ["u1"]);
    // The same span moved to another row: a change too.
    after.set_valign(1, Valign::pending(0x2000, 5, &[0, 0, 0]).unwrap());
    out.clear();
    after.changed(&before, &mut out);
    assert_eq!(out.len(), 1);
    // Emptied to an image of zeros: the span is gone, so a change.
    after.set_valign(1, Valign::with_image([0; 64]));
    out.clear();
    after.changed(&before, &mut out);
    assert_eq!(out.len(), 1);
    // Two empty registers with the same image are the same.
    let mut b2 = Machine::default();
    b2.set_valign(2, Valign::with_image([5; 64]));
    let mut a2 = b2.clone();
    a2.set_valign(2, Valign::with_image([5; 64]));
    out.clear();
    a2.changed(&b2, &mut out);
    assert!(out.is_empty());
}

/// A machine gives back the options it was made with and the ones set later.
#[test]
fn a_machine_keeps_its_options() {
    use xstore_q7::{Misaligned, Options};
    let strict = Options {
        misaligned: Misaligned::Fault,
    };
    let mut m = Machine::new(strict);
    assert_eq!(m.options(), strict);
    m.set_options(Options::default());
    assert_eq!(m.options().misaligned, Misaligned::RoundDown);
    m.set_options(strict);
    assert_eq!(m.options().misaligned, Misaligned::Fault);
}

/// The stepping layer's view: a snapshot is the whole state, so a step that
/// sets one register reports that one and none of the others the machine
/// already held; `set_reg` through the trait sets what `reg` reads back.
#[test]
fn the_stepping_layer_snapshots_and_sets_every_file() {
    let mut m = Machine::default();
    for (name, seed) in [("a1", 5u64), ("v7", 11), ("vb2", 3), ("u3", 17)] {
        Registers::set_reg(&mut m, name, value_for(name, seed)).unwrap();
        assert_eq!(
            Registers::reg(&m, name),
            Some(value_for(name, seed)),
            "{name}"
        );
    }
    let before = Registers::snapshot(&m);
    m.set_ar(3, 9);
    let mut out = Vec::new();
    m.changed(&before, &mut out);
    let got: Vec<&str> = out.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(got, ["a3"]);
    // The wide files take exactly 64 bytes of hex, lane 0 first.
    let hex: String = (0u8..64).map(|b| format!("{b:02x}")).collect();
    m.set_reg("v31", RegValue::Hex(hex.clone())).unwrap();
    assert_eq!(m.vec(31)[..], (0u8..64).collect::<Vec<u8>>()[..]);
    m.set_reg("u0", RegValue::Hex(hex.clone())).unwrap();
    assert_eq!(m.valign(0).image()[..], (0u8..64).collect::<Vec<u8>>()[..]);
    assert!(m.valign(0).is_empty());
    let short = RegValue::Hex(hex[..126].to_string());
    let e = m.set_reg("v1", short).unwrap_err();
    assert!(e.to_string().contains("takes 64 bytes, not 63"), "{e}");
    assert_eq!(m.vec(1), &[0; 64], "a refused value leaves the register");
}

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

//! The rules the assembler enforces and the checks `validate` reports: one
//! row each, whose name every diagnostic and check carries and the docs list.

use crate::tables::encoding::PUBLIC_BYTES;
use xstore_core::rules::CheckDef;
use xstore_core::Provenance;

/// One rule of the assembler: its stable name (a diagnostic's `rule`) and
/// what it requires.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable name, e.g. `operand_class`.
    pub name: &'static str,
    /// What the rule requires, in words (docs/q7.md).
    pub what: &'static str,
}

/// The mnemonic is known.
pub const MNEMONIC: Rule = Rule {
    name: "mnemonic",
    what: "the mnemonic is one of the 92, `IVP_ZALIGN`, an alias, or `nop`",
};
/// The operand count of the signature.
pub const OPERAND_COUNT: Rule = Rule {
    name: "operand_count",
    what: "the operand count of the signature",
};
/// Each operand's register class.
pub const OPERAND_CLASS: Rule = Rule {
    name: "operand_class",
    what: "each operand's register class (`IVP_SBN_I v0, a3, 0` is rejected: its source operand \
           is a vbool)",
};
/// The immediate's scale and range.
pub const IMM_SCALED_4BIT: Rule = Rule {
    name: "imm_scaled_4bit",
    what: "immediates are multiples of the store size VB in a signed 4-bit field without its -8 \
           end: `sv2nx8` [-448, 448], observed live for `IVP_SV2NX8_IP` only (16, 32, ±512 \
           rejected); the other 64-byte forms share the field (inferred); VB = 32 forms [-224, \
           224] (inferred); `ss*`, `sb*`, `salign*` scaled by their size (assumed). The error \
           carries the provenance and, as its hint, what is known for the form (\"Immediates\")",
};
/// At most one B07 op per bundle.
pub const ONE_STORE_PER_BUNDLE: Rule = Rule {
    name: "one_store_per_bundle",
    what: "a bundle holds at most one B07 op (s0 is the only store slot)",
};
/// A store's slot prefix is `s0`.
pub const STORE_SLOT_S0: Rule = Rule {
    name: "store_slot_s0",
    what: "a B07 op written with a slot prefix must be in `s0`",
};
/// The slots of the bundle's format.
pub const BUNDLE_SLOTS: Rule = Rule {
    name: "bundle_slots",
    what: "each `sN:` names a slot of the bundle's format and is used once; the bundle holds no \
           more operations (`nop` included) than the format has slots; a store written without \
           a prefix finds `s0` free. A named format gives its slot count; without one, the \
           widest format that can hold the bundle's store (\"Slots of the formats\"). `asm` also \
           holds the bundle to the public narrow bundle's slots",
};
/// The op places in the named format.
pub const PLACEMENT: Rule = Rule {
    name: "placement",
    what: "when a format is named, the op must have a placement in it (`ss*` not in N1, `sb*` \
           not in N0, coarse `ss*` only in wide formats)",
};
/// No zalign of the store's own valign register.
pub const BUNDLE_VALIGN_CONFLICT: Rule = Rule {
    name: "bundle_valign_conflict",
    what: "`IVP_ZALIGN u` may not share a bundle with a store that uses the same `u`",
};
/// The bundle's bytes are public.
pub const ENCODING_KNOWN: Rule = Rule {
    name: "encoding_known",
    what: "(`asm` only) the op's bundle bytes are public: only the lone `IVP_SV2NX8_IP` with no \
           format named; every other op fails with \"encoding of <op> is not known for this \
           configuration\"",
};
/// Whole bundles of known length.
pub const BUNDLE_LENGTH: Rule = Rule {
    name: "bundle_length",
    what: "`.byte` takes whole 8-byte bundles, each starting with the format marker 0xf (the \
           only bundles whose length is known); the decoder reports the same rule",
};

/// Every assembler rule, in the order the docs list them.
pub static ASM_RULES: [Rule; 11] = [
    MNEMONIC,
    OPERAND_COUNT,
    OPERAND_CLASS,
    IMM_SCALED_4BIT,
    ONE_STORE_PER_BUNDLE,
    STORE_SLOT_S0,
    BUNDLE_SLOTS,
    PLACEMENT,
    BUNDLE_VALIGN_CONFLICT,
    ENCODING_KNOWN,
    BUNDLE_LENGTH,
];

/// One check of `validate`: its row (name, provenance) and what it decides.
#[derive(Debug, Clone, Copy)]
pub struct Check {
    /// The name and provenance every verdict row is built from.
    pub def: CheckDef,
    /// What the check decides, in words (docs/q7.md).
    pub what: &'static str,
}

/// Every bundle has a known length and is complete.
pub const CHECK_LENGTH: Check = Check {
    def: CheckDef {
        name: BUNDLE_LENGTH.name,
        provenance: Provenance::INFERRED_HIGH,
    },
    what: "every bundle has a known length and is complete",
};
/// Every bundle matches the public template.
pub const CHECK_KNOWN: Check = Check {
    def: CheckDef {
        name: "known_encoding",
        provenance: PUBLIC_BYTES,
    },
    what: "every bundle matches the public template",
};
/// No bundle holds the rejected imm4 value.
pub const CHECK_IMM: Check = Check {
    def: CheckDef {
        name: IMM_SCALED_4BIT.name,
        provenance: Provenance::OBSERVED_HIGH,
    },
    what: "no bundle holds the imm4 value -8, which the vendor assembler rejects",
};
/// Every bundle holds one store, in s0.
pub const CHECK_ONE_STORE: Check = Check {
    def: CheckDef {
        name: ONE_STORE_PER_BUNDLE.name,
        provenance: Provenance::OBSERVED_HIGH,
    },
    what: "every bundle holds one store, in s0",
};

/// The checks of `validate`, in report order.
pub static CHECKS: [Check; 4] = [CHECK_LENGTH, CHECK_KNOWN, CHECK_IMM, CHECK_ONE_STORE];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        let mut names: Vec<&str> = ASM_RULES.iter().map(|r| r.name).collect();
        names.extend(
            CHECKS
                .iter()
                .map(|c| c.def.name)
                .filter(|n| *n == "known_encoding"),
        );
        let n = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), n);
        // Every check is decided from the specification, none is assumed.
        for c in &CHECKS {
            assert_eq!(
                c.def.origin(),
                xstore_core::report::CheckOrigin::Spec,
                "{}",
                c.def.name
            );
        }
    }
}

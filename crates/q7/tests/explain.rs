//! `explain` of a mnemonic: every row carries the provenance of the table row
//! that holds its fact.

use xstore_core::report::Explanation;
use xstore_core::Provenance;
use xstore_q7::isa;
use xstore_q7::tables::roster::{self, ALIASES, MINUS_448, MISALIGNED};

fn explain(name: &str) -> Explanation {
    isa().explain(name).unwrap().remove(0)
}

fn row<'a>(e: &'a Explanation, name: &str) -> &'a xstore_core::report::ExplainField {
    e.fields
        .iter()
        .find(|f| f.name == name)
        .unwrap_or_else(|| panic!("{}: no `{name}` row", e.title))
}

fn prov(e: &Explanation, name: &str) -> String {
    row(e, name).provenance.to_string()
}

#[test]
fn overrides_of_the_reference_page_are_not_labelled_observed() {
    // The addressing of the stream ops is the public evidence's, not the page's.
    for op in [
        "IVP_SAV2NX8_XP",
        "IVP_SAVN_2X16U_XP",
        "IVP_SA2NX8_IP",
        "IVP_SANX8S_IP",
        "IVP_SAPOS_FP",
        "IVP_SAPOS_FPXP",
    ] {
        assert_eq!(prov(&explain(op), "addressing"), "public-usage", "{op}");
    }
    let e = explain("IVP_SAV2NX8_XP");
    assert_eq!(
        row(&e, "addressing").meaning,
        "ea = a, then a += clamp(a2, 0, VB)"
    );
    assert_eq!(prov(&e, "operands"), "public-usage");
    assert_eq!(
        row(&explain("IVP_SA2NX8_IP"), "addressing").meaning,
        "ea = a, then a += VB (no immediate operand)"
    );
    // The salign spill and the sb* immediate form are inferred; ss* is public usage.
    assert_eq!(
        prov(&explain("IVP_SALIGN_IP"), "addressing"),
        "seed/inferred/med"
    );
    assert_eq!(
        prov(&explain("IVP_SBN_IP"), "addressing"),
        "seed/inferred/med"
    );
    assert_eq!(prov(&explain("IVP_SS2NX8_X"), "addressing"), "public-usage");
    assert_eq!(
        prov(&explain("IVP_SV2NX8_XP"), "addressing"),
        "seed/observed/high"
    );
    // Placements: the coarse ss* set and the sa*/sav* set are inferred.
    for op in [
        "IVP_SSN_4X64_I",
        "IVP_SSN_16X256_XP",
        "IVP_SA2NX8_IP",
        "IVP_SAVNX8U_XP",
    ] {
        assert_eq!(
            prov(&explain(op), "placements"),
            "seed/inferred/med",
            "{op}"
        );
    }
    assert_eq!(
        prov(&explain("IVP_SS2NX8_I"), "placements"),
        "seed/observed/high"
    );
    assert_eq!(
        prov(&explain("IVP_SV2NX8_I"), "placements"),
        "seed/observed/high"
    );
    // The round-down of a misaligned address is assumed, and the observed
    // semantics row no longer carries it.
    let e = explain("IVP_SV2NX8_I");
    assert_eq!(prov(&e, "misaligned"), "assumed");
    assert!(row(&e, "misaligned").meaning.contains("rounds down"));
    assert_eq!(prov(&e, "semantics"), "seed/observed/high");
    assert!(!row(&e, "semantics").meaning.contains("round"));
    assert_eq!(prov(&explain("IVP_SBN_I"), "misaligned"), "assumed");
    assert_eq!(row(&explain("IVP_SALIGN_I"), "misaligned").raw, "align 64");
    // Aliases with public call sites are public-usage.
    for a in [
        "IVP_SANX16_IP",
        "IVP_SAV2NX8U_XP",
        "IVP_SVN_2X32_IP",
        "IVP_SAPOS2NX8U_FP",
    ] {
        assert_eq!(prov(&explain(a), "alias"), "public-usage", "{a}");
    }
    assert_eq!(prov(&explain("IVP_SVNX16_X"), "alias"), "assumed");
}

#[test]
fn every_row_reads_its_table_row() {
    for op in roster::roster() {
        let fam = op.fam;
        let e = explain(&op.name);
        let p = |name: &str| row(&e, name).provenance;
        assert_eq!(p("group"), fam.prov, "{}", op.name);
        assert_eq!(p("operands"), fam.sig_prov, "{}", op.name);
        assert_eq!(p("addressing"), fam.agu_prov, "{}", op.name);
        assert_eq!(p("semantics"), fam.sem_prov, "{}", op.name);
        assert_eq!(p("lane view"), fam.sem_prov, "{}", op.name);
        assert_eq!(p("placements"), fam.placements.prov, "{}", op.name);
        assert_eq!(
            e.fields
                .iter()
                .find(|f| f.name == "predicate")
                .map(|f| f.provenance),
            fam.pred_prov,
            "{}",
            op.name
        );
        match fam.source_claim {
            Some(c) => {
                let r = row(&e, "source claim");
                assert_eq!(
                    (r.raw.as_str(), r.provenance),
                    (c.cite, c.prov),
                    "{}",
                    op.name
                );
            }
            None => assert!(e.fields.iter().all(|f| f.name != "source claim")),
        }
        match op.imm_rule() {
            Some((_, _, _, rule)) => assert_eq!(p("immediate"), rule.prov, "{}", op.name),
            None => assert!(e.fields.iter().all(|f| f.name != "immediate")),
        }
        for s in e.fields.iter().filter(|f| f.name == "selector") {
            let want = op
                .selectors()
                .find(|x| format!("{:#010x}", x.word0) == s.raw)
                .map(|x| x.prov)
                .unwrap_or(fam.prov);
            assert_eq!(s.provenance, want, "{}", op.name);
        }
        if matches!(
            op.kind(),
            roster::Kind::Store | roster::Kind::MaskStore | roster::Kind::Salign
        ) {
            assert_eq!(p("misaligned"), MISALIGNED.prov);
        }
    }
    for a in ALIASES {
        assert_eq!(
            row(&explain(a.alias), "alias").provenance,
            a.prov,
            "{}",
            a.alias
        );
    }
}

#[test]
fn explain_has_no_provenance_literal() {
    let src = include_str!("../src/explain.rs");
    assert!(
        !src.contains("Provenance::"),
        "explain.rs names a provenance itself instead of reading a table row"
    );
}

#[test]
fn minus_448_shows_both_claims_beside_the_choice() {
    let e = explain("IVP_SV2NX8_IP");
    let imm = row(&e, "immediate");
    assert_eq!(imm.provenance, Provenance::OBSERVED_HIGH);
    assert!(
        imm.meaning
            .starts_with("signed 4-bit field x 64: [-448, 448]"),
        "{}",
        imm.meaning
    );
    let choice = row(&e, "immediate choice");
    assert_eq!(choice.raw, "-448");
    assert_eq!(choice.meaning, MINUS_448.choice.text);
    assert_eq!(choice.provenance, Provenance::Assumed);
    let claims: Vec<_> = e
        .fields
        .iter()
        .filter(|f| f.name == "immediate claim")
        .collect();
    assert_eq!(claims.len(), 2);
    assert_eq!(claims[0].raw, "reference page §3.3");
    assert!(claims[0].meaning.contains("so -448 is in range"));
    assert_eq!(claims[1].raw, "reference page §10");
    assert!(claims[1].meaning.contains("rejects 16, 32, -448"));
    // The model's choice holds: -448 assembles to field value -7.
    let b = isa().asm("IVP_SV2NX8_IP v0, a3, -448").unwrap();
    assert_eq!(b[0][0] >> 4, 0x9);
    // The bundle explanation says so too.
    let ex = isa().explain("9f03049c945e9c02").unwrap();
    assert!(
        ex[0].notes.iter().any(|n| n.contains("§10 says")),
        "{:?}",
        ex[0].notes
    );
    // Other forms have no such contradiction to show.
    assert!(explain("IVP_SV2NX8_I")
        .fields
        .iter()
        .all(|f| f.name != "immediate claim"));
}

#[test]
fn zalign_has_no_mode() {
    let e = explain("IVP_ZALIGN");
    assert_eq!(
        row(&e, "group").meaning,
        "family zalign (no addressing mode)"
    );
    assert_eq!(
        row(&explain("IVP_SV2NX8_IP"), "group").meaning,
        "family sv2nx8 (IP mode)"
    );
}

#[test]
fn a_bundle_explains_in_one() {
    let one = |text: &str| {
        let [b] = <[_; 1]>::try_from(xstore_q7::assemble(text).unwrap()).unwrap();
        b.explain()
    };
    // Public bytes: the bytes field by field, as `explain HEX` shows them.
    let public = one("IVP_SV2NX8_IP v0, a3, 64");
    let hex = xstore_core::hex::encode(
        &xstore_q7::assemble("IVP_SV2NX8_IP v0, a3, 64").unwrap()[0]
            .encode()
            .unwrap(),
    );
    assert_eq!(public, isa().explain(&hex).unwrap().remove(0));
    // One operation without public bytes: its roster facts.
    let zalign = one("IVP_ZALIGN u0");
    assert_eq!(zalign.title, "IVP_ZALIGN u0");
    assert_eq!(zalign.fields[0].name, "instruction");
    // Two: the bundle's row once, then each operation's rows by its index.
    let two = one("{ IVP_ZALIGN u1 ; IVP_SA2NX8_IP v0, u0, a3 }");
    assert_eq!(two.title, "{ IVP_ZALIGN u1 ; IVP_SA2NX8_IP v0, u0, a3 }");
    let names: Vec<&str> = two.fields.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names.iter().filter(|n| **n == "instruction").count(), 1);
    assert!(
        names.iter().any(|n| n.starts_with("op0.")) && names.iter().any(|n| n.starts_with("op1."))
    );
    assert_eq!(
        two.fields.len(),
        1 + (zalign.fields.len() - 1) + (one("IVP_SA2NX8_IP v0, u0, a3").fields.len() - 1)
    );
}

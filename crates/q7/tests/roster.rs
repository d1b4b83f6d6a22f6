//! The roster table itself: counts, family sizes, placements, selectors, aliases.

use xstore_q7::tables::roster::{self, Format, Group, Kind, Mode, ALIASES, SELECTORS};

#[test]
fn ninety_two_mnemonics_in_four_groups() {
    let r = roster::roster();
    let b07: Vec<_> = r.iter().filter(|o| o.is_b07()).collect();
    assert_eq!(b07.len(), 92);
    let n = |g: Group| b07.iter().filter(|o| o.group() == g).count();
    assert_eq!(
        (n(Group::Sv), n(Group::Ss), n(Group::Sb), n(Group::Valign)),
        (40, 32, 6, 14)
    );
    assert_eq!(b07.iter().filter(|o| o.predicated()).count(), 20);
    assert!(b07
        .iter()
        .filter(|o| o.predicated())
        .all(|o| o.group() == Group::Sv && o.fam.family.ends_with('t')));
    // The companion is present but not counted.
    assert_eq!(r.len(), 93);
    assert_eq!(r[92].name, "IVP_ZALIGN");
    assert_eq!(r[92].kind(), Kind::Zalign);
}

#[test]
fn names_are_unique_and_spelled_from_family_and_mode() {
    let r = roster::roster();
    let mut names: Vec<&str> = r.iter().map(|o| o.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), r.len());
    for want in [
        "IVP_SV2NX8_IP",
        "IVP_SVN_2X16UT_XP",
        "IVP_SSN_16X256_X",
        "IVP_SBN_2_IP",
        "IVP_SALIGN_I",
        "IVP_SAPOS_FPXP",
        "IVP_SAVN_2X16U_XP",
        "IVP_SAN_2X16S_IP",
    ] {
        assert!(roster::find(want).is_some(), "{want}");
        assert!(roster::find(&want.to_ascii_lowercase()).is_some(), "{want}");
    }
    assert!(roster::find("IVP_SA2NX8_I").is_none());
    assert!(roster::find("IVP_SBN_X").is_none());
}

#[test]
fn every_sv_and_ss_family_has_the_four_agu_modes() {
    for f in roster::FAMILIES {
        match f.group {
            Group::Sv | Group::Ss => {
                assert_eq!(
                    f.modes,
                    &[Mode::I, Mode::Ip, Mode::X, Mode::Xp],
                    "{}",
                    f.family
                )
            }
            Group::Sb => assert_eq!(f.modes, &[Mode::I, Mode::Ip], "{}", f.family),
            _ => {}
        }
    }
}

#[test]
fn placements_follow_the_source() {
    let p = |name: &str| {
        roster::roster()[roster::find(name).unwrap()]
            .fam
            .placements
            .formats
    };
    assert_eq!(p("IVP_SV2NX8_I").len(), 9);
    assert!(p("IVP_SV2NX8_I").contains(&Format::N1));
    assert_eq!(p("IVP_SS2NX8_I").len(), 8);
    assert!(!p("IVP_SS2NX8_I").contains(&Format::N1));
    assert!(p("IVP_SS2NX8_I").contains(&Format::N0));
    assert_eq!(p("IVP_SBN_I").len(), 8);
    assert!(!p("IVP_SBN_I").contains(&Format::N0));
    assert!(p("IVP_SBN_I").contains(&Format::N1));
    for n in [
        "IVP_SALIGN_I",
        "IVP_SALIGN_IP",
        "IVP_SAPOS_FP",
        "IVP_SAPOS_FPXP",
    ] {
        assert_eq!(p(n).len(), 10, "{n}");
        assert!(p(n).contains(&Format::F4), "{n}");
    }
    // Only the prime/flush ops have the F4 load slot.
    let f4 = roster::roster()
        .iter()
        .filter(|o| o.fam.placements.formats.contains(&Format::F4))
        .count();
    assert_eq!(f4, 4);
    // Coarse ss shapes need a wide format.
    assert!(p("IVP_SSN_16X256_I").iter().all(|f| f.bytes() == 16));
    // Every B07 op places in slot s0 only: the slot names say so.
    for o in roster::roster().iter().filter(|o| o.is_b07()) {
        assert!(o
            .fam
            .placements
            .formats
            .iter()
            .all(|f| f.slot().contains("_s0_")));
    }
    // The documented total (the reference page states 746).
    let total: usize = roster::roster()
        .iter()
        .filter(|o| o.is_b07())
        .map(|o| o.fam.placements.formats.len())
        .sum();
    assert_eq!(total, 770);
}

#[test]
fn selector_words_match_the_source() {
    for s in SELECTORS {
        assert!(roster::find(s.mnemonic).is_some(), "{}", s.mnemonic);
    }
    let w = |n: &str| {
        roster::roster()[roster::find(n).unwrap()]
            .f0_word()
            .unwrap()
    };
    // Post-increment is bit 0x100 (reference page §3.3).
    assert_eq!(w("IVP_SV2NX8_XP") - w("IVP_SV2NX8_X"), 0x100);
    // The +0x40000 data-shape ladder (reference page §3.2).
    let ladder = [
        "IVP_SV2NX8_I",
        "IVP_SVNX8S_I",
        "IVP_SVNX8U_I",
        "IVP_SVN_2X16S_I",
        "IVP_SVN_2X16U_I",
    ];
    for p in ladder.windows(2) {
        assert_eq!(w(p[1]) - w(p[0]), 0x40000, "{p:?}");
    }
    assert_eq!(w("IVP_SV2NX8T_I"), 0x1020_0000);
    assert_eq!(w("IVP_SALIGN_I"), 0x1100_0200);
    let f4 = SELECTORS
        .iter()
        .find(|s| s.mnemonic == "IVP_SALIGN_I" && s.format == Format::F4)
        .unwrap();
    assert_eq!(f4.word0, 0x1061_9400);
    // Word1 of a wide store template is 0: the table keeps only word0.
    assert!(roster::find("IVP_SVNX8ST_I")
        .map(|i| roster::roster()[i].f0_word().is_none())
        .unwrap());
}

#[test]
fn aliases_name_machine_ops_and_never_shadow_them() {
    for a in ALIASES {
        assert!(
            roster::find(a.alias).is_none(),
            "{} shadows a machine op",
            a.alias
        );
        let (i, al) = roster::lookup(a.alias).unwrap();
        assert_eq!(roster::roster()[i].name, a.target);
        assert!(al.is_some());
        // Type-only: aliases point at verbatim (non-narrowing) ops or the flush.
        let op = &roster::roster()[i];
        assert!(matches!(
            op.conv(),
            roster::Conv::Copy { len: 64 } | roster::Conv::None
        ));
    }
    let (i, _) = roster::lookup("ivp_sapos2nx8_fp").unwrap();
    assert_eq!(roster::roster()[i].name, "IVP_SAPOS_FP");
}

#[test]
fn store_image_sizes() {
    let vb = |n: &str| roster::roster()[roster::find(n).unwrap()].vb();
    assert_eq!(vb("IVP_SV2NX8_I"), 64);
    assert_eq!(vb("IVP_SVNX8S_I"), 32);
    assert_eq!(vb("IVP_SVN_2X16U_XP"), 32);
    assert_eq!(vb("IVP_SANX8U_IP"), 32);
    assert_eq!(vb("IVP_SS2NX8_I"), 1);
    assert_eq!(vb("IVP_SSNX8S_I"), 1);
    assert_eq!(vb("IVP_SSN_2X16S_I"), 2);
    assert_eq!(vb("IVP_SSN_16X256_I"), 32);
    assert_eq!(vb("IVP_SB2N_I"), 8);
    assert_eq!(vb("IVP_SBN_I"), 4);
    assert_eq!(vb("IVP_SBN_2_I"), 2);
}

#[test]
fn store_sizes_are_powers_of_two() {
    // The executor's alignment check is a mask.
    for op in roster::roster() {
        let n = op.vb();
        assert!(n == 0 || n.is_power_of_two(), "{}", op.name);
    }
}

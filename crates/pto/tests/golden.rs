//! tests/golden/pto.txt: golden vectors, one case per line, `bytes | text |
//! verdict`, checked both ways: `asm` of the text gives the bytes, `disasm` of
//! the bytes gives the text, `validate` of the bytes gives the verdict. The
//! file covers every command format, data type, B.DATR layout and PEMode, the
//! block rules, and the known bad words; `XSTORE_BLESS=1 cargo test -p
//! xstore-pto` regenerates it from the inputs below.

use std::collections::BTreeSet;
use std::path::PathBuf;
use xstore_pto::tables::{self, LayoutUse, Op};
use xstore_pto::{decode, isa, Word};

fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/golden/pto.txt")
}

const HEADER: &str = "\
# PTO golden vectors: one case per line, `bytes | text | verdict`.
# bytes: the command words in memory order (hex), one group per word;
# text: the canonical assembly, commands separated by `; ` (`-`: a word that does not decode);
# verdict: `valid`, `invalid: ` and the failed checks of `pto validate` (a word that does not decode:
# with the field it names); `; prose: ` and the failed checks of
# origin prose (reported, not deciding the verdict).
# Checked both ways by crates/pto/tests/golden.rs; regenerate with XSTORE_BLESS=1 cargo test -p xstore-pto.
";

const SRC: &str = "B.IOT T#1, mask=1000, last";

/// The blocks, as assembly text.
fn blocks() -> Vec<String> {
    let mut v: Vec<String> = vec![
        // The worked encodings, in a block.
        "BSTART.TSTORE U8; B.DIM LB0, 64; B.DIM LB1, 8; B.DIM LB2, 64; B.IOR a0, a1; B.IOT T1, mask=1111, last; BSTOP".into(),
        "BSTART.TSTORE FP16; B.IOS S7, mask=1111; B.SUBVIEW 0, a0, 0, 7; BSTOP".into(),
        // Every command form and spelling.
        "BSTART.TSTORE U8; C.B.DIMI 64, ->LB0; C.B.DIMI LB1, 8; C.B.DIMI 255, ->LB2; B.IOT U#16, mask=0100, last; C.BSTOP".into(),
        "BSTART.TSTORE U16; B.DIM a0, 0x1ffff, ->LB0; B.DIM x3, 1, ->LB1; B.IOR sp, ra; B.IOT N#16, mask=0001, last; BSTOP".into(),
        "BSTART.TSTORE U32; B.IOT T#1, mask=1111, last; B.IOR a0, a1; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOR a0, a1, a2; B.IOT T#1, mask=1000, last; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOR a0, a1, ->a3; B.IOT T#1, mask=1000, last; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOS S63, mask=1000, size=3; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOS S0, mask=1000; B.SUBVIEW 0, s8, 2047, 12; BSTOP".into(),
        "BSTART.TLOAD U8; B.IOT T#1, mask=1000, last; BSTOP".into(),
        "BSTART.TLOAD U8; B.DIM zero, 64, ->LB0; B.DIM zero, 8, ->LB1; B.DIM zero, 64, ->LB2; B.IOR zero, a0; B.IOT mask=1111, last, ->T<1>; BSTOP".into(),
        "BSTART.TLOAD FP16; B.DIM zero, 32, ->LB0; B.DIM zero, 4, ->LB1; B.IOS S7, mask=1100, size=1; BSTOP".into(),
        "BSTART.TLOAD FP16; B.DATR ND2N8, DTYPE_NONE, pad=1; B.DIM zero, 8, ->LB0; B.DIM zero, 16, ->LB1; B.IOT mask=1111, last, ->N<3>; BSTOP".into(),
        "BSTART.TLOAD U8; B.IOT mask=1000, ->U<11>; BSTOP".into(),
        "BSTART.TLOAD U8; B.DATR M322ND, DTYPE_NONE; C.B.DIMI 4, ->LB0; C.B.DIMI 4, ->LB1; B.IOT mask=1000, last, ->M<1>; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOT mask=1000, last, ->T<1>; BSTOP".into(),
        "BSTART.TLOAD U8; B.IOS S1, mask=1000, size=2; B.SUBVIEW 0, a0, 0, 1; BSTOP".into(),
        // The block rules.
        format!("{SRC}; BSTOP"),
        format!("BSTART.TSTORE U8; {SRC}"),
        format!("BSTART.TSTORE U8; BSTART.TSTORE U8; {SRC}; BSTOP"),
        format!("BSTART.TSTORE U8; B.DIM LB0, 4; C.B.DIMI 4, ->LB0; {SRC}; BSTOP"),
        format!("BSTART.TSTORE U8; B.DATR NORM, FP64; B.DATR NORM, FP64; {SRC}; BSTOP"),
        format!("BSTART.TSTORE U8; {SRC}; B.DATR NORM, FP64; BSTOP"),
        format!("BSTART.TSTORE U8; B.IOR a0, a1; B.IOR a0, a1; {SRC}; BSTOP"),
        "BSTART.TSTORE U8; B.IOT T#1, mask=1000; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOR a0, a1; BSTOP".into(),
        format!("BSTART.TSTORE U8; B.IOS S1, mask=1000; {SRC}; BSTOP"),
        "BSTART.TSTORE U8; B.IOS S1, mask=1000; B.IOR a0, a1; B.SUBVIEW 0, a0, 0, 1; BSTOP".into(),
        "BSTART.TSTORE U8; B.IOS S1, mask=1000; B.SUBVIEW 1, a0, 0, 1; BSTOP".into(),
        "BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE; B.DIM LB0, 4; B.IOT M#1, mask=1000, last; BSTOP".into(),
        "BSTART.TSTORE U8; B.DATR M322ND, DTYPE_NONE; C.B.DIMI 0, ->LB0; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP".into(),
        "BSTART.TSTORE FP64; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP".into(),
        "BSTART.TSTORE U8; B.DATR N82ND, DTYPE_NONE; B.DIM LB0, 4; B.DIM LB1, 4; B.IOS S1, mask=1000; BSTOP".into(),
        format!("BSTART.TSTORE U8; B.DATR NORM, FP64, pad=1, cmode=2, rmode=3, sat, canon; {SRC}; BSTOP"),
        "BSTART.TSTORE U8; B.DATR M162ND, DTYPE_NONE, pad=3, sat; B.DIM LB0, 4; B.DIM LB1, 4; B.IOT M#1, mask=1000, last; BSTOP".into(),
    ];
    // Every data type code of BSTART.TSTORE (the reserved ones decode: a legality fault).
    for code in 0..32u8 {
        v.push(format!(
            "BSTART.TSTORE {}; {SRC}; BSTOP",
            tables::dtype_name(code)
        ));
    }
    // Every assigned B.DATR layout, in the form it would take.
    for l in tables::DATR_LAYOUTS {
        v.push(match l.usage {
            LayoutUse::Cube(_) => format!(
                "BSTART.TSTORE U8; B.DATR {}, DTYPE_NONE; C.B.DIMI 4, ->LB0; C.B.DIMI 2, ->LB1; B.IOT M#1, mask=1000, last; BSTOP",
                l.name
            ),
            _ => format!("BSTART.TSTORE U8; B.DATR {}, FP64; {SRC}; BSTOP", l.name),
        });
    }
    // Every PEMode, Local and Shared.
    for pemode in 0..8u8 {
        let m = tables::mask_text(pemode);
        v.push(format!(
            "BSTART.TSTORE U8; B.IOT T#1, mask={m}, last; BSTOP"
        ));
        v.push(format!("BSTART.TSTORE U8; B.IOS S2, mask={m}; BSTOP"));
    }
    v
}

/// The known bad words: each does not decode, and the error names its field.
const BAD_WORDS: &[&str] = &[
    "8111e1d8",         // BSTART function 14 (TSTORE.SPART, reserved in 0.58.5)
    "811191d8",         // BSTART function 9
    "8111f1d8",         // BSTART function 15
    "811111da",         // BSTART bits 26:25
    "135e0880",         // B.IOT bit 31
    "935e0800",         // B.IOT bit 7
    "13de0800",         // B.IOT SizeCode 1 (a destination binding)
    "131e7800",         // B.IOS bit 19
    "13003102",         // B.IOR bits 26:25
    "13003c00",         // B.IOR RegSrc0 24
    "130031f8",         // B.IOR RegSrc2 31
    "43000c00",         // B.DIM RegSrc 24
    "23100c00",         // B.DATR bits 19:18
    "2310f000",         // B.DATR DataType 15
    "23110000",         // B.DATR Layout 2 (unassigned)
    "a31f0000",         // B.DATR Layout 31 (unassigned)
    "139e7600",         // B.IOS SizeCode 13
    "139e7700",         // B.IOS SizeCode 15
    "3cc0",             // C.B.DIMI LoopNest 3
    "53000000",         // B.SUBVIEW SubviewSizeCode 0
    "d3060000",         // B.SUBVIEW SubviewSizeCode 13
    "d30b0100",         // B.SUBVIEW bit 11
    "43300000",         // B.DIM LoopNest 3: no command
    "0200",             // a 16-bit word that is no command
    "03000000",         // a 32-bit word that is no command
    "0e0000000000",     // a 48-bit word
    "0f00000000000000", // a 64-bit word
];

fn hex_words(bytes: &[u8]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let n = (tables::word_bits(u16::from_le_bytes([bytes[i], bytes[i + 1]])) / 8) as usize;
        out.push(xstore_core::hex::encode(&bytes[i..i + n]));
        i += n;
    }
    out.join(" ")
}

/// `validate`'s verdict; a word that does not decode adds the field its
/// check names (`[field Function]`).
fn verdict(bytes: &[u8]) -> String {
    let v = match isa().validate(bytes) {
        Ok(v) => v,
        Err(_) => return "unsupported".to_string(),
    };
    let prose: Vec<&str> = v
        .checks
        .iter()
        .filter(|c| c.passed == Some(false) && c.origin == xstore_core::report::CheckOrigin::Prose)
        .map(|c| c.name.as_str())
        .collect();
    let prose = if prose.is_empty() {
        String::new()
    } else {
        format!("; prose: {}", prose.join(", "))
    };
    if v.valid {
        return format!("valid{prose}");
    }
    let names: Vec<String> = v
        .failed
        .iter()
        .map(|name| {
            let check = v.checks.iter().find(|c| &c.name == name).unwrap();
            match check.detail.rfind("[field ") {
                Some(i) if name.ends_with(": decode") => format!("{name} {}", &check.detail[i..]),
                _ => name.clone(),
            }
        })
        .collect();
    format!("invalid: {}{prose}", names.join(", "))
}

fn text(bytes: &[u8]) -> String {
    isa()
        .disasm(bytes)
        .map(|t| t.join("; "))
        .unwrap_or_else(|_| "-".to_string())
}

/// The file as the model renders the inputs now.
fn render() -> String {
    let mut s = HEADER.to_string();
    for b in blocks() {
        let bytes = isa()
            .asm(&b)
            .unwrap_or_else(|d| panic!("{b}: {d}"))
            .concat();
        s += &format!(
            "{} | {} | {}\n",
            hex_words(&bytes),
            text(&bytes),
            verdict(&bytes)
        );
    }
    for w in BAD_WORDS {
        let bytes = xstore_core::hex::decode(w).unwrap();
        s += &format!(
            "{} | {} | {}\n",
            hex_words(&bytes),
            text(&bytes),
            verdict(&bytes)
        );
    }
    s
}

fn blessing() -> bool {
    std::env::var_os("XSTORE_BLESS").is_some()
}

/// The golden file (while blessing, what is being written to it).
fn golden() -> String {
    if blessing() {
        return render();
    }
    std::fs::read_to_string(path()).expect("tests/golden/pto.txt exists")
}

struct Case {
    line: usize,
    bytes: Vec<u8>,
    text: String,
    verdict: String,
}

fn cases(file: &str) -> Vec<Case> {
    file.lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(" | ").collect();
            assert_eq!(f.len(), 3, "pto.txt:{}: {l}", i + 1);
            Case {
                line: i + 1,
                bytes: xstore_core::hex::decode(&f[0].replace(' ', "")).unwrap(),
                text: f[1].to_string(),
                verdict: f[2].to_string(),
            }
        })
        .collect()
}

#[test]
fn the_golden_file_is_what_the_model_renders() {
    let want = render();
    if blessing() {
        std::fs::create_dir_all(path().parent().unwrap()).unwrap();
        std::fs::write(path(), &want).unwrap();
        return;
    }
    let got = std::fs::read_to_string(path()).expect("tests/golden/pto.txt exists");
    if got != want {
        let diff: Vec<String> = got
            .lines()
            .zip(want.lines())
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(5)
            .map(|(i, (a, b))| format!("line {}:\n  file:  {a}\n  model: {b}", i + 1))
            .collect();
        panic!(
            "tests/golden/pto.txt differs from the model (regenerate with XSTORE_BLESS=1 cargo test -p xstore-pto):\n{}\n({} vs {} lines)",
            diff.join("\n"),
            got.lines().count(),
            want.lines().count()
        );
    }
}

#[test]
fn every_golden_case_holds_both_ways() {
    let file = golden();
    let cases = cases(&file);
    assert!(cases.len() >= 100, "{} cases", cases.len());
    for c in &cases {
        let at = format!("pto.txt:{}", c.line);
        assert_eq!(verdict(&c.bytes), c.verdict, "{at}: validate");
        if c.text == "-" {
            assert!(isa().disasm(&c.bytes).is_err(), "{at}: decodes");
            assert!(
                c.verdict.contains("Fault_IllegalInstruction: decode"),
                "{at}"
            );
            continue;
        }
        assert_eq!(text(&c.bytes), c.text, "{at}: disasm");
        let asm = isa().asm(&c.text).unwrap_or_else(|d| panic!("{at}: {d}"));
        assert_eq!(asm.concat(), c.bytes, "{at}: asm");
    }
}

#[test]
fn the_golden_file_covers_every_format_dtype_layout_and_pemode() {
    let file = golden();
    let words: Vec<Word> = cases(&file)
        .iter()
        .filter_map(|c| decode(&c.bytes).ok())
        .flatten()
        .collect();
    let ops: BTreeSet<String> = words.iter().map(|w| format!("{:?}", w.op())).collect();
    let all: [Op; 14] = [
        Op::BstartTstore,
        Op::BstartTload,
        Op::Datr,
        Op::Dim0,
        Op::Dim1,
        Op::Dim2,
        Op::Dimi,
        Op::Ior,
        Op::Iot,
        Op::IotDst,
        Op::Ios,
        Op::Subview,
        Op::Bstop,
        Op::CBstop,
    ];
    for op in all {
        assert!(ops.contains(&format!("{op:?}")), "no {op:?}");
    }
    assert_eq!(all.len(), tables::FORMATS.len());
    let dtypes: BTreeSet<u8> = words
        .iter()
        .filter_map(|w| match w {
            Word::Bstart { dtype, .. } => Some(*dtype),
            _ => None,
        })
        .collect();
    assert_eq!(dtypes.len(), 32);
    let layouts: BTreeSet<u8> = words
        .iter()
        .filter_map(|w| match w {
            Word::Datr { layout, .. } => Some(*layout),
            _ => None,
        })
        .collect();
    assert!(tables::DATR_LAYOUTS
        .iter()
        .all(|l| layouts.contains(&l.code)));
    for shared in [false, true] {
        let modes: BTreeSet<u8> = words
            .iter()
            .filter_map(|w| match (w, shared) {
                (Word::Iot { pemode, .. }, false) | (Word::Ios { pemode, .. }, true) => {
                    Some(*pemode)
                }
                _ => None,
            })
            .collect();
        assert_eq!(modes.len(), 8, "shared {shared}");
    }
    // Every bad word is in the file as a word that does not decode.
    for w in BAD_WORDS {
        let hex = hex_words(&xstore_core::hex::decode(w).unwrap());
        assert!(file.contains(&format!("\n{hex} | - | ")), "{w}");
    }
}

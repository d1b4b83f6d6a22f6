//! `disasm`'s text style flags: the styled text of each ISA's sample, and
//! that `asm` reads it back to the same bytes.

mod common;
use common::xstore;

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// `xstore ISA asm` of a text file; the hex lines.
fn asm(s: &common::Scratch, isa: &str, text: &str) -> String {
    let f = s.file(&format!("{isa}.s"), text);
    stdout(&xstore(&[isa, "asm", &f]))
}

const FLAGS: [[&str; 8]; 3] = [
    [
        "--hex-case",
        "upper",
        "--hex-style",
        "h",
        "--reg-case",
        "upper",
        "--reg-names",
        "short",
    ],
    [
        "--hex-case",
        "lower",
        "--hex-style",
        "h",
        "--reg-case",
        "lower",
        "--reg-names",
        "canonical",
    ],
    [
        "--hex-case",
        "upper",
        "--hex-style",
        "0x",
        "--reg-case",
        "canonical",
        "--reg-names",
        "short",
    ],
];

#[test]
fn styled_disasm_prints_the_style_and_reassembles() {
    let s = common::Scratch::new("styles");
    let cases = [
        (
            "neuron",
            "tensor_load.u32 [0xfa0], num_elem=(2,1), reg=(r4,r5), sem=0xab",
            "tensor_load.u32 [0FA0h], num_elem=(2,1), reg=(R4,R5), sem=0ABh\n",
        ),
        (
            "pto",
            "BSTART.TSTORE U8\nB.IOR a0, a1\nB.IOT T#2, mask=1111, last\nBSTOP",
            "BSTART.TSTORE U8\nB.IOR A0, A1\nB.IOT T2, mask=1111, last\nBSTOP\n",
        ),
        (
            "q7",
            "IVP_SV2NX8_IP v3, a2, 64\n.byte 0x0f, 0x03, 0x04, 0x9c, 0x94, 0x5e, 0x9c, 0x03",
            "IVP_SV2NX8_IP V3, A2, 64\n.byte 0Fh, 03h, 04h, 9Ch, 94h, 5Eh, 9Ch, 03h  \
             # unknown 8-byte FLIX bundle (encoding not public)\n",
        ),
    ];
    for (isa, text, styled) in cases {
        let hex = asm(&s, isa, text);
        let h = s.file(&format!("{isa}.hex"), &hex);
        for (k, flags) in FLAGS.iter().enumerate() {
            let mut args = vec![isa, "disasm", "--hex-file", &h];
            args.extend(flags);
            let out = stdout(&xstore(&args));
            if k == 0 {
                assert_eq!(out, styled, "{isa}");
            }
            assert_eq!(asm(&s, isa, &out), hex, "{isa} {flags:?}: {out}");
        }
        // No flags: the canonical text.
        let plain = stdout(&xstore(&[isa, "disasm", "--hex-file", &h]));
        assert_eq!(asm(&s, isa, &plain), hex);
    }
}

#[test]
fn a_bad_style_value_is_named() {
    let o = xstore(&["neuron", "disasm", "--hex-style", "H", "ab"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("'H'") && err.contains("--hex-style"), "{err}");
    assert!(err.contains("0x, h"), "{err}");
}

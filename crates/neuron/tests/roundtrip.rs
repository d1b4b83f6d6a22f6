//! Round trips: decode∘encode on random bytes, assemble∘disassemble on bytes,
//! parse∘print on canonical text.

mod common;
use proptest::prelude::*;
use xstore_neuron::{decode, decode_one};

const OPS: [u8; 9] = [0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xab, 0xcd, 0xce];

fn check_bytes(b: [u8; 64]) {
    let d = decode_one(&b).unwrap();
    assert_eq!(d.encode(), b, "decode/encode");
    let text = d.to_string();
    let again = xstore_neuron::isa()
        .asm(&text)
        .unwrap_or_else(|e| panic!("{text}\n{e}"));
    assert_eq!(again.len(), 1);
    assert_eq!(again[0], b.to_vec(), "asm(disasm) differs for {text}");
    let printed = decode_one(&again[0].clone().try_into().unwrap())
        .unwrap()
        .to_string();
    assert_eq!(printed, text, "print(parse(text)) differs");
}

/// A structured instruction: the source fields filled the way `imm=`/`reg=` print.
fn structured() -> impl Strategy<Value = [u8; 64]> {
    (
        prop::sample::select(vec![0xaa_u8, 0xab, 0xcd, 0xce]),
        prop::sample::select(vec![1u8, 2, 3, 4, 5, 8, 9, 10]),
        0u8..2,
        1u8..=8,
        1u8..=4,
        any::<[u8; 32]>(),
        any::<u64>(),
        any::<[i32; 2]>(),
        any::<bool>(),
    )
        .prop_map(|(op, dt, src, n0, n1, data, addr, step, dense)| {
            let mut b = [0u8; 64];
            b[0] = op;
            b[1] = 0x10;
            b[12] = dt;
            b[13] = src;
            let w = match dt {
                1 => 8,
                2 | 3 => 1,
                4 | 5 => 2,
                _ => 4,
            };
            let cap = if src == 0 { 32 } else { 32 / w };
            let n1 = n1.min((cap / n0 as usize).max(1) as u8);
            let n0 = n0.min(cap as u8);
            b[14] = n0;
            b[15] = n1;
            let addr = if op >= 0xcd {
                addr
            } else {
                addr & ((1 << 58) - 1)
            };
            b[16..24].copy_from_slice(&addr.to_le_bytes());
            let step = if dense { [1, n0 as i32] } else { step };
            b[24..28].copy_from_slice(&step[0].to_le_bytes());
            b[28..32].copy_from_slice(&step[1].to_le_bytes());
            let used = if src == 0 {
                n0 as usize * n1 as usize
            } else {
                n0 as usize * n1 as usize * w
            };
            b[32..32 + used].copy_from_slice(&data[..used]);
            b
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_round_trip(op in prop::sample::select(OPS.to_vec()), rest in any::<[u8; 63]>()) {
        let mut b = [0u8; 64];
        b[0] = op;
        b[1..].copy_from_slice(&rest);
        check_bytes(b);
    }

    #[test]
    fn random_small_field_values_round_trip(
        op in prop::sample::select(OPS[5..].to_vec()),
        small in prop::collection::vec(0u8..4, 64),
    ) {
        // Mostly-zero bytes hit the defaults and the structured forms.
        let mut b = [0u8; 64];
        b.copy_from_slice(&small);
        b[0] = op;
        b[1] = 0x10;
        check_bytes(b);
    }

    #[test]
    fn structured_instructions_round_trip(b in structured()) {
        check_bytes(b);
        let text = decode_one(&b).unwrap().to_string();
        prop_assert!(text.contains("imm=(") || text.contains("reg=("), "{}", text);
    }

    #[test]
    fn streams_decode_in_one_call(insts in prop::collection::vec(structured(), 1..6)) {
        let n = insts.len();
        let s: Vec<u8> = insts.concat();
        let d = decode(&s).unwrap();
        prop_assert_eq!(d.len(), n);
        let text: Vec<String> = xstore_neuron::isa().disasm(&s).unwrap();
        let back: Vec<u8> = xstore_neuron::isa().asm(&text.join("\n")).unwrap().concat();
        prop_assert_eq!(back, s);
    }
}

#[test]
fn canonical_text_is_a_fixed_point() {
    for line in [
        "tensor_store.u16 [0x1000], num_elem=(4,2), step_elem=(1,8), imm=(1,2,3,4,5,6,7,8)",
        "tensor_store.u8 [0x0], num_elem=(1,1), imm=(255)",
        "tensor_store.i8 [0x0], num_elem=(3,1), imm=(-128,-1,127)",
        "tensor_store.i16 [0x2], num_elem=(2,1), imm=(-32768,32767)",
        "tensor_store.i32 [0x4], num_elem=(2,1), imm=(-2147483648,2147483647)",
        "tensor_store.u32 [0x4], num_elem=(1,1), imm=(4294967295)",
        "tensor_store.u64 [0x8], num_elem=(2,1), imm=(18446744073709551615,0)",
        "tensor_store.f32 [0x8], num_elem=(6,1), imm=(1.5,-0.0,inf,-inf,1e-45,0x7fc00001)",
        "tensor_store.u64 [0x1000], num_elem=(2,1), reg=(r4,r6), wait=(0x05,3), sem=0x7",
        "tensor_load.u32 [0x40], num_elem=(2,1), reg=(r4,r5)",
        "pseudo_tensor_store.u8 [var=3, offset=0x10], num_elem=(2,1), imm=(1,2)",
        "pseudo_tensor_load.f32 [var=4294967295], num_elem=(1,1), reg=(r63)",
        "tensor_store.u8 [addr8=0x4000000000001234], num_elem=(1,1), imm=(1)",
        "tensor_store.bf16 [0x0], num_elem=(1,1), src=imm, data=0x0100000000000000000000000000000000000000000000000000000000000000",
        "tensor_store.0xff [0x0], num_elem=(0,0), src=0x07, data=0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "tensor_store.u8 [0x0], num_elem=(2,1), step_elem=(0,0), reg=(r0,r255), update=(0x01,2), word_len=0x00, debug=(0x01,0xff)",
        "tensor_store.u8 [0x0], num_elem=(0,1), imm=()",
        "write.not_modelled 0xa5000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
    ] {
        let bytes = xstore_neuron::isa().asm(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        let text = xstore_neuron::isa().disasm(&bytes[0]).unwrap();
        assert_eq!(text, [line.to_string()]);
    }
}

#[test]
fn non_canonical_spellings_print_canonically() {
    for (input, canonical) in [
        (
            "  tensor_store.u8   [ 4096 ] , imm = ( 0b1 , 0x02 ) , num_elem = ( 2 , 1 )  # c",
            "tensor_store.u8 [0x1000], num_elem=(2,1), imm=(1,2)",
        ),
        (
            "tensor_store.u16 [0x0], num_elem=(2,1), step_elem=(1,2), imm=(1,2) ; default step",
            "tensor_store.u16 [0x0], num_elem=(2,1), imm=(1,2)",
        ),
        (
            "tensor_store.i8 [0x0], num_elem=(1,1), imm=(0xff)",
            "tensor_store.i8 [0x0], num_elem=(1,1), imm=(-1)",
        ),
        (
            "tensor_store.f32 [0x0], num_elem=(2,1), imm=(1,0x3fc00000)",
            "tensor_store.f32 [0x0], num_elem=(2,1), imm=(1.0,1.5)",
        ),
        (
            "tensor_store.u8 [0x0], num_elem=(1,1), src=imm, data=07000000000000000000000000000000000000000000000000000000000000000",
            "",
        ),
        (
            "tensor_store.u8 [addr8=0x10], num_elem=(1,1), reg=(r1)",
            "tensor_store.u8 [0x10], num_elem=(1,1), reg=(r1)",
        ),
        (
            "pseudo_tensor_store.u8 [var=1, offset=0], num_elem=(1,1), reg=(r1)",
            "pseudo_tensor_store.u8 [var=1], num_elem=(1,1), reg=(r1)",
        ),
        (
            "tensor_store.u8 [0x0], num_elem=(1,1), step_elem=(0xffffffff,0), reg=(r1)",
            "tensor_store.u8 [0x0], num_elem=(1,1), step_elem=(-1,0), reg=(r1)",
        ),
    ] {
        match xstore_neuron::isa().asm(input) {
            Ok(b) => {
                assert!(!canonical.is_empty(), "{input} should not assemble");
                assert_eq!(xstore_neuron::isa().disasm(&b[0]).unwrap(), [canonical.to_string()]);
            }
            Err(e) => assert!(canonical.is_empty(), "{input}: {e}"),
        }
    }
    // The raw data form of a representable field prints structured.
    let b = xstore_neuron::isa()
        .asm("tensor_store.u8 [0x0], num_elem=(1,1), src=imm, data=0700000000000000000000000000000000000000000000000000000000000000")
        .unwrap();
    assert_eq!(
        xstore_neuron::isa().disasm(&b[0]).unwrap(),
        ["tensor_store.u8 [0x0], num_elem=(1,1), imm=(7)"]
    );
}

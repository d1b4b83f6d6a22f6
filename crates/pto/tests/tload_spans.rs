//! The reads a TLOAD makes, as the trace shows them (docs/pto.md, "TLOAD"):
//! rows back to back are one read, strided rows one read each, the reads of
//! consecutive PEs or quarters that meet are one read, and a row that passes
//! 2^64 - 1 is read up to there and on from 0. Beside each, what the tile
//! holds, against an element-by-element reading of memory.

use xstore_core::{Access, Memory, MemoryMap, Region, TraceSink};
use xstore_pto::{assemble, Machine, Step};

/// Keeps the reads, in order.
#[derive(Default)]
struct Reads(Vec<(u64, usize)>);

impl TraceSink for Reads {
    fn write(&mut self, _addr: u64, _bytes: &[u8]) {}
    fn read(&mut self, addr: u64, bytes: &[u8]) {
        self.0.push((addr, bytes.len()));
    }
}

const TOP: u64 = u64::MAX - 0xffff;

/// 64 KiB at the bottom of the address space and 64 KiB at its top, each
/// byte a function of its address.
fn memory() -> Memory {
    let map = MemoryMap::new(vec![
        Region::new(0, 0x1_0000, Access::ReadWrite).unwrap(),
        Region::new(TOP, 0x1_0000, Access::ReadWrite).unwrap(),
    ])
    .unwrap();
    let mut mem = Memory::new(map);
    for base in [0, TOP] {
        let bytes: Vec<u8> = (0..0x1_0000u64)
            .map(|i| byte_at(base.wrapping_add(i)))
            .collect();
        mem.load(base, &bytes).unwrap();
    }
    mem
}

fn byte_at(a: u64) -> u8 {
    (a as u8).wrapping_mul(29) ^ (a >> 8) as u8 ^ (a >> 60) as u8
}

/// Run `text` with every PE's a0 = `base`, a1 = `stride`; the reads.
fn load(
    m: &mut Machine,
    mem: &mut Memory,
    text: &str,
    base: u64,
    stride: u64,
) -> Vec<(u64, usize)> {
    for pe in 0..4 {
        m.set_gpr(pe, "a0", base).unwrap();
        m.set_gpr(pe, "a1", stride).unwrap();
    }
    let mut reads = Reads::default();
    let words = assemble(text).unwrap_or_else(|d| panic!("{text}: {d}"));
    assert_eq!(
        m.execute(&words, mem, &mut reads),
        Ok(Step::Loaded),
        "{text}"
    );
    reads.0
}

fn local_u8(rows: u32, cols: u32, size: u8) -> String {
    format!("BSTART.TLOAD U8; B.DIM zero, {cols}, ->LB0; B.DIM zero, {rows}, ->LB1; B.IOR a0, a1; B.IOT mask=1000, last, ->T<{size}>; BSTOP")
}

/// PE0's T#1 holds byte (r, c) of memory at base + r·stride + c.
fn check_u8(m: &Machine, rows: u32, cols: u32, base: u64, stride: u64) {
    let t = m.local(0, 0).expect("loaded");
    for r in 0..rows {
        for c in 0..cols {
            let a = base.wrapping_add(r as u64 * stride).wrapping_add(c as u64);
            assert_eq!(t.get(r, c), byte_at(a) as u64, "({r}, {c}) from {a:#x}");
        }
    }
}

#[test]
fn rows_back_to_back_are_one_read_and_strided_rows_one_read_each() {
    let mut mem = memory();
    let mut m = Machine::new();
    assert_eq!(
        load(&mut m, &mut mem, &local_u8(8, 128, 4), 0x100, 128),
        [(0x100, 1024)]
    );
    check_u8(&m, 8, 128, 0x100, 128);
    let mut m = Machine::new();
    let strided: Vec<(u64, usize)> = (0..8).map(|r| (0x100 + r * 200, 128)).collect();
    assert_eq!(
        load(&mut m, &mut mem, &local_u8(8, 128, 4), 0x100, 200),
        strided
    );
    check_u8(&m, 8, 128, 0x100, 200);
}

#[test]
fn rows_past_the_top_of_the_address_space_go_on_at_zero() {
    let mut mem = memory();
    // Rows 0..4 at the top, rows 4..8 from 0: two reads.
    let mut m = Machine::new();
    let base = u64::MAX - 512 + 1;
    assert_eq!(
        load(&mut m, &mut mem, &local_u8(8, 128, 4), base, 128),
        [(base, 512), (0, 512)]
    );
    check_u8(&m, 8, 128, base, 128);
    // Rows back to back ending on the last byte: one read.
    let mut m = Machine::new();
    let base = u64::MAX - 1024 + 1;
    assert_eq!(
        load(&mut m, &mut mem, &local_u8(8, 128, 4), base, 128),
        [(base, 1024)]
    );
    check_u8(&m, 8, 128, base, 128);
    // A row that passes 2^64 - 1: its first 64 bytes, then the rest from 0,
    // which the next row continues.
    let mut m = Machine::new();
    let base = u64::MAX - 64 + 1;
    assert_eq!(
        load(&mut m, &mut mem, &local_u8(2, 128, 2), base, 128),
        [(base, 64), (0, 192)]
    );
    check_u8(&m, 2, 128, base, 128);
    // The same with strided rows: each row split where it passes the top.
    let mut m = Machine::new();
    let base = u64::MAX - 32 + 1;
    assert_eq!(
        load(&mut m, &mut mem, &local_u8(2, 128, 2), base, 256),
        [(base, 32), (0, 96), (224, 128)]
    );
    check_u8(&m, 2, 128, base, 256);
}

#[test]
fn the_quarters_of_a_shared_load_that_meet_are_one_read() {
    let mut mem = memory();
    // 1 KiB of U8, Col 32, 32 rows: each PE's quarter is 8 whole rows. With
    // one base and stride for all, the quarters' reads meet.
    let mut m = Machine::new();
    let text = "BSTART.TLOAD U8; B.DIM zero, 32, ->LB0; B.DIM zero, 32, ->LB1; B.IOR a0, a1; B.IOS S1, mask=1111, size=4; BSTOP";
    assert_eq!(load(&mut m, &mut mem, text, 0x400, 32), [(0x400, 1024)]);
    let t = m.shared(1).unwrap();
    assert!(t.published());
    for r in 0..32u32 {
        for c in 0..32u32 {
            let a = 0x400 + r as u64 * 32 + c as u64;
            assert_eq!(t.get(r, c), byte_at(a) as u64, "({r}, {c})");
        }
    }
    // A stride of 48: a read per row, the quarters' rows in order.
    let mut m = Machine::new();
    let rows: Vec<(u64, usize)> = (0..32).map(|r| (0x400 + r * 48, 32)).collect();
    assert_eq!(load(&mut m, &mut mem, text, 0x400, 48), rows);
    // Four-bit elements, 128 B: Col 128, two rows, each PE's quarter half a
    // row; the quarters start 32 bytes apart and meet.
    let mut m = Machine::new();
    let text = "BSTART.TLOAD U4X2; B.DIM zero, 128, ->LB0; B.DIM zero, 2, ->LB1; B.IOR a0, a1; B.IOS S2, mask=1111, size=1; BSTOP";
    assert_eq!(load(&mut m, &mut mem, text, 0x800, 64), [(0x800, 128)]);
    let t = m.shared(2).unwrap();
    for r in 0..2u32 {
        for c in 0..128u32 {
            let a = 0x800 + r as u64 * 64 + c as u64 / 2;
            let want = (byte_at(a) >> (4 * (c % 2))) & 0xf;
            assert_eq!(t.get(r, c), want as u64, "({r}, {c})");
        }
    }
    // At a stride of 80 the second row's quarters start 80 bytes on.
    let mut m = Machine::new();
    assert_eq!(
        load(&mut m, &mut mem, text, 0x800, 80),
        [(0x800, 64), (0x850, 64)]
    );
}

#[test]
fn the_reads_of_consecutive_pes_that_meet_are_one_read() {
    let mut mem = memory();
    let mut m = Machine::new();
    // PE1 reads from where PE0's rows end; PE2 elsewhere.
    let bases = [0x1000u64, 0x1000 + 4 * 64, 0x3000];
    for (pe, b) in bases.iter().enumerate() {
        m.set_gpr(pe, "a0", *b).unwrap();
        m.set_gpr(pe, "a1", 64).unwrap();
    }
    let text = "BSTART.TLOAD U16; B.DIM zero, 32, ->LB0; B.DIM zero, 4, ->LB1; B.IOR a0, a1; B.IOT mask=1110, last, ->T<2>; BSTOP";
    let mut reads = Reads::default();
    assert_eq!(
        m.execute(&assemble(text).unwrap(), &mut mem, &mut reads),
        Ok(Step::Loaded)
    );
    assert_eq!(reads.0, [(0x1000, 512), (0x3000, 256)]);
    for (pe, b) in bases.iter().enumerate() {
        let t = m.local(pe, 0).unwrap();
        for r in 0..4u32 {
            for c in 0..32u32 {
                let a = b + r as u64 * 64 + c as u64 * 2;
                let want = u16::from_le_bytes([byte_at(a), byte_at(a + 1)]);
                assert_eq!(t.get(r, c), want as u64, "PE{pe} ({r}, {c})");
            }
        }
    }
}

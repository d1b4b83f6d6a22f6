//! The one rule for reads of memory that callers allocate for (`xstore run
//! --dump`, the Python package's `Memory.read` and `run(dumps=...)`): at most
//! `READ_MAX` bytes, checked against the map before anything is allocated.

use xstore_core::isa::{check_dump, check_read_len, READ_MAX, READ_MAX_TEXT};
use xstore_core::{Access, DiagKind, MemoryMap, Region};

fn map() -> MemoryMap {
    MemoryMap::new(vec![
        Region::new(0, 0x1000, Access::ReadWrite)
            .unwrap()
            .named("ram"),
        Region::new(0x1000, 0x100, Access::ReadOnly)
            .unwrap()
            .named("rom"),
        Region::new(0x8000, 0x10, Access::ReadWrite)
            .unwrap()
            .named("io"),
    ])
    .unwrap()
}

#[test]
fn the_cap_is_16_mib_and_says_so() {
    assert_eq!(READ_MAX, 16 << 20);
    assert_eq!(READ_MAX_TEXT, format!("{} MiB", READ_MAX >> 20));
    assert_eq!(check_read_len("read", 0, READ_MAX), Ok(()));
    let d = check_read_len("read", 0x10, READ_MAX + 1).unwrap_err();
    assert_eq!(d.kind, DiagKind::Range);
    assert_eq!(
        d.to_string(),
        "<input>: error: read 0x10:16777217: one read takes at most 16 MiB; expected a \
         length of at most 16 MiB (16777216 bytes)"
    );
}

#[test]
fn a_dump_is_capped_then_checked_against_the_map() {
    let m = map();
    assert_eq!(check_dump(&m, "--dump", 0xff0, 0x20), Ok(()));
    assert_eq!(check_dump(&m, "--dump", 0x5000, 0), Ok(()));
    // The cap comes first: a range too long to read is refused whatever the map.
    let d = check_dump(&m, "dump", 0, 1 << 40).unwrap_err();
    assert!(d.message.contains("one read takes at most 16 MiB"), "{d}");
    let d = check_dump(&m, "--dump", 0x10f0, 0x20).unwrap_err();
    assert_eq!(
        d.to_string(),
        "<input>: error: --dump 0x10f0:32: address 0x1100 is not mapped; expected a range \
         inside the mapped regions: ram [0x0, 0xfff], rom [0x1000, 0x10ff], io [0x8000, \
         0x800f]\n  hint: dumps are checked against the memory map before the scenario runs"
    );
    let d = check_dump(&m, "--dump", u64::MAX, 2).unwrap_err();
    assert_eq!(
        d.message,
        "--dump 0xffffffffffffffff:2: the range passes the top of the 64-bit address space"
    );
    assert_eq!(d.hint, None);
}

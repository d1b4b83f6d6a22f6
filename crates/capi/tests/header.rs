//! `include/xstore.h` is what cbindgen makes of the crate with
//! `cbindgen.toml`; `XSTORE_BLESS=1` rewrites it.

use std::path::Path;

#[test]
fn the_checked_in_header_is_cbindgens() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut made = Vec::new();
    cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads the crate")
        .write(&mut made);
    let made = String::from_utf8(made).expect("a UTF-8 header");
    let path = dir.join("include/xstore.h");
    if std::env::var_os("XSTORE_BLESS").is_some() {
        std::fs::write(&path, &made).expect("write the header");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == made,
        "crates/capi/include/xstore.h is stale: regenerate it with \
         XSTORE_BLESS=1 cargo test -p xstore-capi --test header"
    );
}

#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xstore_fuzz::target("pto_decode").expect("a target").run(data));

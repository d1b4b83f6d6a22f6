#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xstore_fuzz::target("q7_decode").expect("a target").run(data));

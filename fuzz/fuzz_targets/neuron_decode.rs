#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xstore_fuzz::target("neuron_decode").expect("a target").run(data));

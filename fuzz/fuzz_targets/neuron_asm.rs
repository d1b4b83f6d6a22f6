#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| xstore_fuzz::target("neuron_asm").expect("a target").run(data));

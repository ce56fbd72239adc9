//! libFuzzer's driver of the `replay` target (`hexforge_fuzz::targets::replay`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hexforge_fuzz::targets::replay(data));

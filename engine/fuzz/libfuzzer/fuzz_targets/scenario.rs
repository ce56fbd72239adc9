//! libFuzzer's driver of the `scenario` target (`hexforge_fuzz::targets::scenario`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hexforge_fuzz::targets::scenario(data));

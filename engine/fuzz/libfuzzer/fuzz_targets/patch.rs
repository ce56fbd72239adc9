//! libFuzzer's driver of the `patch` target (`hexforge_fuzz::targets::patch`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hexforge_fuzz::targets::patch(data));

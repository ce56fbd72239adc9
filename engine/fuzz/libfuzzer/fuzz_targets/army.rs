//! libFuzzer's driver of the `army` target (`hexforge_fuzz::targets::army`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hexforge_fuzz::targets::army(data));

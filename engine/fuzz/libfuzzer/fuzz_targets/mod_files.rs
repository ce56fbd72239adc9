//! libFuzzer's driver of the `mod_files` target (`hexforge_fuzz::targets::mod_files`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hexforge_fuzz::targets::mod_files(data));

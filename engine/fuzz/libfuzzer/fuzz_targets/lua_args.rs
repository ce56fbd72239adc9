//! libFuzzer's driver of the `lua_args` target (`hexforge_fuzz::targets::lua_args`).
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hexforge_fuzz::targets::lua_args(data));

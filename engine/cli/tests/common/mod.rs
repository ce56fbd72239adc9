//! What the binary's tests share: running `hexforge` in the checkout as a user runs it.

use std::path::Path;
use std::process::Command;

/// Runs `hexforge args` in the checkout with `user_mods` as the user mods folder (`None`: only
/// the checkout's mods, so that a user mods folder on this machine cannot change results), and
/// returns whether it succeeded and its standard output followed by its standard error.
pub fn run(args: &[&str], user_mods: Option<&Path>) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hexforge"))
        .env(
            "HEXFORGE_USER_MODS",
            user_mods.unwrap_or(Path::new("/nonexistent/hexforge-user-mods")),
        )
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("run hexforge");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

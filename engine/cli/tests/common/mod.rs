//! What the binary's tests share: running `hexforge` in the checkout as a user runs it, and
//! copying a mods folder to change it.

// Each test file uses what it needs of these.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Runs `hexforge args` in the checkout with `user_mods` as the user mods folder (`None`: only
/// the checkout's mods, so that a user mods folder on this machine cannot change results), and
/// returns whether it succeeded and its standard output followed by its standard error.
pub fn run(args: &[&str], user_mods: Option<&Path>) -> (bool, String) {
    run_env(args, user_mods, &[])
}

/// [`run`] with the environment variables `env` set as well.
pub fn run_env(args: &[&str], user_mods: Option<&Path>, env: &[(&str, &Path)]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hexforge"))
        .env(
            "HEXFORGE_USER_MODS",
            user_mods.unwrap_or(Path::new("/nonexistent/hexforge-user-mods")),
        )
        .envs(env.iter().map(|(k, v)| (k, v.as_os_str())))
        .args(args)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("run hexforge");
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// Copies the folder `from` into `to`, recursively.
pub fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a folder");
    for entry in std::fs::read_dir(from).expect("read a folder").flatten() {
        let path = entry.path();
        let target = to.join(entry.file_name());
        if path.is_dir() {
            copy(&path, &target);
        } else {
            std::fs::copy(&path, &target).expect("copy a file");
        }
    }
}

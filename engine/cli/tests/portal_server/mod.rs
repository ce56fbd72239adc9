//! A mod portal for the binary's tests: `hexforge portal serve` on a free port, stopped when
//! dropped.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A running portal, stopped when dropped.
pub struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `hexforge portal serve --data DATA --port 0`, and the address its first line gives.
pub fn serve(data: &Path) -> (Server, String) {
    serve_with(data, &[])
}

/// [`serve`] with more arguments (`--tls-cert FILE --tls-key FILE`).
pub fn serve_with(data: &Path, more: &[&str]) -> (Server, String) {
    let data = data.to_string_lossy();
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexforge"))
        .args(["portal", "serve", "--data", &data, "--port", "0"])
        .args(more)
        .stdout(Stdio::piped())
        .spawn()
        .expect("the portal starts");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("its output"))
        .read_line(&mut first)
        .expect("its first line");
    let address = first
        .split_whitespace()
        .find(|w| w.starts_with("http://") || w.starts_with("https://"))
        .unwrap_or_else(|| panic!("no address in {first}"))
        .to_string();
    (Server(child), address)
}

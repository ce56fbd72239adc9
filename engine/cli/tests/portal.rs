//! The mod portal as people use it: `hexforge portal serve` on a free port over a temporary
//! data folder (a real SQLite database), an author's token, two versions of a mod with a
//! dependency published, installed on a second "machine" (another mods folder) with what it
//! needs, found outdated, updated with the old folder set aside, and played from there; each bad
//! publication refused.

mod common;
mod portal_server;

use portal_server::{serve, serve_with};

use std::path::{Path, PathBuf};

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hexforge-cli-portal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp folder");
    d
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 temp path")
}

/// A new mod `id` at `version` in `root`, needing `needs`.
fn new_mod(root: &Path, id: &str, version: &str, needs: &[(&str, &str)]) -> PathBuf {
    let dir = root.join(id);
    let _ = std::fs::remove_dir_all(&dir);
    let (ok, out) = common::run(&["mods", "new", id, "--into", path(root)], None);
    assert!(ok, "{out}");
    let manifest = dir.join("mod.toml");
    let mut text = std::fs::read_to_string(&manifest).expect("its manifest");
    text = text.replace("version = \"0.1.0\"", &format!("version = \"{version}\""));
    if !needs.is_empty() {
        text.push_str("\n[dependencies]\n");
        for (d, req) in needs {
            text.push_str(&format!("{d} = \"{req}\"\n"));
        }
    }
    std::fs::write(&manifest, text).expect("written");
    dir
}

/// `hexforge portal author NAME --data DATA`: the author's token.
fn author(data: &Path, name: &str) -> String {
    let (ok, out) = common::run(&["portal", "author", name, "--data", path(data)], None);
    assert!(ok, "{out}");
    out.lines().next().expect("the token").trim().to_string()
}

#[test]
fn a_mod_is_published_installed_with_its_dependency_updated_and_played() {
    let dir = temp("journey");
    let (_server, portal) = serve(&dir.join("data"));
    let token = author(&dir.join("data"), "alice");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("a folder");
    let publish = |folder: &Path, token: &str| {
        common::run(
            &[
                "mods",
                "publish",
                path(folder),
                "--portal",
                &portal,
                "--token",
                token,
            ],
            None,
        )
    };
    let lib = new_mod(&src, "siege_lib", "1.0.0", &[]);
    let (ok, out) = publish(&lib, &token);
    assert!(
        ok && out.starts_with("published `siege_lib` 1.0.0 #"),
        "{out}"
    );
    let wagons = new_mod(&src, "war_wagons", "1.0.0", &[("siege_lib", "^1")]);
    let (ok, out) = publish(&wagons, &token);
    assert!(ok, "{out}");
    // Refused: the same version again, a wrong token, no token at all.
    let (ok, out) = publish(&wagons, &token);
    assert!(!ok && out.contains("never overwritten"), "{out}");
    let (ok, out) = publish(&wagons, "0123");
    assert!(
        !ok && out.contains("the token is not an author's of this portal"),
        "{out}"
    );
    let (ok, out) = common::run(
        &["mods", "publish", path(&wagons), "--portal", &portal],
        None,
    );
    assert!(!ok && out.contains("needs the author's token"), "{out}");

    let (ok, out) = common::run(&["mods", "search", "wagons", "--portal", &portal], None);
    assert!(ok && out.starts_with("war_wagons 1.0.0 by alice"), "{out}");

    // A second machine: the mod and the library it needs, from the portal.
    let machine = dir.join("machine_b");
    let (ok, out) = common::run(
        &[
            "mods",
            "install",
            "war_wagons",
            "--portal",
            &portal,
            "--into",
            path(&machine),
            "--yes",
        ],
        Some(&machine),
    );
    assert!(ok, "{out}");
    assert!(out.contains("installed `siege_lib` 1.0.0"), "{out}");
    assert!(out.contains("installed `war_wagons` 1.0.0"), "{out}");
    let (ok, out) = common::run(
        &[
            "mods",
            "list",
            "--outdated",
            "--portal",
            &portal,
            "--from",
            path(&machine),
        ],
        Some(&machine),
    );
    assert!(ok && out.contains("up to date"), "{out}");

    // A game recorded with 1.0.0.
    let replay = dir.join("game.txt");
    let (ok, out) = common::run(
        &[
            "match",
            "--army",
            "war_wagons",
            "--army",
            "moloch",
            "--seed",
            "5",
            "--quiet",
            "--replay",
            path(&replay),
        ],
        Some(&machine),
    );
    assert!(ok, "{out}");

    // A new version, which changes play: found outdated, then updated; the old folder is kept
    // aside and its archive kept in `.versions/`.
    let v2 = new_mod(&src, "war_wagons", "1.1.0", &[("siege_lib", "^1")]);
    let army = v2.join("armies/war_wagons.toml");
    let text = std::fs::read_to_string(&army).expect("its army");
    let changed = text.replacen("edges = [\"melee:2@0\"]", "edges = [\"melee:3@0\"]", 1);
    assert_ne!(changed, text, "the Rallier's strike to change");
    std::fs::write(&army, changed).expect("written");
    let (ok, out) = publish(&wagons, &token);
    assert!(ok, "{out}");
    let (ok, out) = common::run(
        &[
            "mods",
            "list",
            "--outdated",
            "--portal",
            &portal,
            "--from",
            path(&machine),
        ],
        Some(&machine),
    );
    assert!(ok && out.contains("war_wagons 1.0.0 -> 1.1.0"), "{out}");
    let (ok, out) = common::run(
        &[
            "mods",
            "update",
            "--portal",
            &portal,
            "--into",
            path(&machine),
            "--yes",
        ],
        Some(&machine),
    );
    assert!(ok, "{out}");
    assert!(out.contains("installed `war_wagons` 1.1.0"), "{out}");
    assert!(!out.contains("siege_lib"), "the library is kept: {out}");
    assert!(out.contains(".replaced"), "{out}");
    let manifest = std::fs::read_to_string(machine.join("war_wagons/mod.toml")).expect("installed");
    assert!(manifest.contains("version = \"1.1.0\""), "{manifest}");

    // The game recorded with 1.0.0 verifies with 1.0.0, kept side by side; with its archive
    // gone, the portal gives that exact version again.
    let (ok, out) = common::run(
        &["replay", path(&replay), "--verify", "--quiet"],
        Some(&machine),
    );
    assert!(ok, "{out}");
    assert!(out.contains("replaying with `war_wagons` 1.0.0"), "{out}");
    assert!(
        out.lines().any(|l| l.ends_with(
            "differs in play from the recorded 1.0.0 in: armies/war_wagons.toml (changed)"
        )),
        "the file that changed is named, and only it (not the manifest's version): {out}"
    );
    std::fs::remove_dir_all(machine.join(".versions")).expect("the shelf");
    let (ok, out) = common::run(
        &["replay", path(&replay), "--verify", "--quiet"],
        Some(&machine),
    );
    assert!(!ok && out.contains("the mods differ"), "{out}");
    let (ok, out) = common::run(
        &[
            "replay",
            path(&replay),
            "--verify",
            "--quiet",
            "--portal",
            &portal,
        ],
        Some(&machine),
    );
    assert!(ok, "{out}");
    assert!(out.contains("fetched `war_wagons` 1.0.0"), "{out}");
    assert!(machine.join(".versions/war_wagons-1.0.0.hexmod").is_file());

    // Played from there: the new army plays a game against a base army.
    let (ok, out) = common::run(
        &[
            "match",
            "--army",
            "war_wagons",
            "--army",
            "moloch",
            "--seed",
            "3",
        ],
        Some(&machine),
    );
    assert!(ok, "{out}");
    assert!(out.contains("Result:"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn installing_what_the_portal_lacks_or_a_cycle_installs_nothing() {
    let dir = temp("refusals");
    let (_server, portal) = serve(&dir.join("data"));
    let (_, out) = common::run(
        &["portal", "author", "bob", "--data", path(&dir.join("data"))],
        None,
    );
    let token = out.lines().next().expect("the token").trim().to_string();
    let src = dir.join("src");
    std::fs::create_dir_all(&src).expect("a folder");
    for (id, other) in [("ying", "yang"), ("yang", "ying")] {
        let folder = new_mod(&src, id, "1.0.0", &[(other, "^1")]);
        let (ok, out) = common::run(
            &[
                "mods",
                "publish",
                path(&folder),
                "--portal",
                &portal,
                "--token",
                &token,
            ],
            None,
        );
        assert!(ok, "{out}");
    }
    let machine = dir.join("machine_b");
    let (ok, out) = common::run(
        &[
            "mods",
            "install",
            "ying",
            "--portal",
            &portal,
            "--into",
            path(&machine),
            "--yes",
        ],
        Some(&machine),
    );
    assert!(
        !ok && out.contains("a dependency cycle: ying needs yang needs ying"),
        "{out}"
    );
    let (ok, out) = common::run(
        &[
            "mods",
            "install",
            "nothing@1.0.0",
            "--portal",
            &portal,
            "--into",
            path(&machine),
            "--yes",
        ],
        Some(&machine),
    );
    assert!(
        !ok && out.contains("no mod `nothing` is published here"),
        "{out}"
    );
    assert!(
        std::fs::read_dir(&machine).map_or(true, |mut d| d.next().is_none()),
        "nothing installed"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_portal_served_over_tls_is_published_to_and_searched_with_https() {
    let dir = temp("tls");
    // A self-signed certificate for the loopback: the test's own authority.
    let cert =
        rcgen::generate_simple_self_signed(vec!["localhost".to_string(), "127.0.0.1".to_string()])
            .expect("a certificate");
    let (cert_file, key_file) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert_file, cert.cert.pem()).expect("the certificate");
    std::fs::write(&key_file, cert.key_pair.serialize_pem()).expect("its key");
    let (_server, portal) = serve_with(
        &dir.join("data"),
        &["--tls-cert", path(&cert_file), "--tls-key", path(&key_file)],
    );
    assert!(portal.starts_with("https://"), "{portal}");
    let token = author(&dir.join("data"), "alice");
    let lib = new_mod(&dir.join("src"), "siege_lib", "1.0.0", &[]);
    // The certificate's authority is not trusted by default: refused, with what to do.
    let (ok, out) = common::run(&["mods", "search", "siege", "--portal", &portal], None);
    assert!(!ok, "{out}");
    assert!(out.contains("HEXFORGE_CA_FILE"), "{out}");
    // Trusted through HEXFORGE_CA_FILE: published and found over https.
    let trust = [("HEXFORGE_CA_FILE", cert_file.as_path())];
    let (ok, out) = common::run_env(
        &[
            "mods",
            "publish",
            path(&lib),
            "--portal",
            &portal,
            "--token",
            &token,
        ],
        None,
        &trust,
    );
    assert!(
        ok && out.starts_with("published `siege_lib` 1.0.0 #"),
        "{out}"
    );
    let (ok, out) = common::run_env(
        &["mods", "search", "siege", "--portal", &portal],
        None,
        &trust,
    );
    assert!(ok && out.contains("siege_lib"), "{out}");
    // A key without its certificate is refused before listening.
    let (ok, out) = common::run(
        &[
            "portal",
            "serve",
            "--data",
            path(&dir.join("data")),
            "--tls-key",
            path(&key_file),
        ],
        None,
    );
    assert!(!ok && out.contains("--tls-cert"), "{out}");
    let _ = std::fs::remove_dir_all(dir);
}

//! The release scripts under `.ci/` that CI does not run: the profile-guided build
//! (`.ci/release-pgo`, docs/PERFORMANCE.md, "The greedy bot's games") would take two more
//! release builds. Bash at least reads it whole, and every `hexforge` command it trains on names
//! a subcommand the binary has, so a broken edit shows here.

mod common;

#[test]
fn the_profile_guided_build_script_parses_and_trains_on_real_commands() {
    let script = common::root().join(".ci/release-pgo");
    let out = std::process::Command::new("bash")
        .arg("-n")
        .arg(&script)
        .output()
        .expect("bash runs");
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&script).expect("the script reads");
    let main = std::fs::read_to_string(common::root().join("engine/cli/src/main.rs"))
        .expect("the CLI's main reads");
    let mut trained = 0;
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("\"$bin\" ") else {
            continue;
        };
        let sub = rest.split_whitespace().next().unwrap_or_default();
        // Each subcommand is a variant of the CLI's command enum, named in kebab case there.
        let variant: String = sub
            .split('-')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_uppercase().chain(c).collect::<String>())
                    .unwrap_or_default()
            })
            .collect();
        assert!(
            main.contains(&format!("    {variant} {{"))
                || main.contains(&format!("    {variant}(")),
            "{}: `hexforge {sub}` is no subcommand of engine/cli/src/main.rs",
            script.display()
        );
        trained += 1;
    }
    assert!(trained >= 3, "the script trains on {trained} commands");
}

//! `hexforge mods`: the mods found and their state, a full check of one mod folder, and a new
//! mod made from a template that passes the check and plays.

use anyhow::{Context as _, Result, bail};
use hexforge_content::{Diagnostic, LoadedMods};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `p` with its links and `..` resolved, or as given when it cannot be (it does not exist).
pub fn canonical(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// `hexforge mods list`: every mod found, loaded ones in load order (each with its description,
/// authors, folder, content hash, boards and warnings), then the skipped ones.
pub fn list(out: &mut impl Write, loaded: &LoadedMods) -> Result<ExitCode> {
    writeln!(out, "{:<16} {:<9} {:<8} armies", "mod", "version", "state")?;
    for m in &loaded.mods {
        let armies: Vec<&str> = m.armies.iter().map(|a| a.id.as_str()).collect();
        writeln!(
            out,
            "{:<16} {:<9} {:<8} {}",
            m.id,
            m.manifest.version.to_string(),
            "loaded",
            armies.join(", ")
        )?;
        if !m.manifest.description.is_empty() {
            writeln!(out, "    {}", m.manifest.description)?;
        }
        if !m.manifest.authors.is_empty() {
            writeln!(out, "    by: {}", m.manifest.authors.join(", "))?;
        }
        writeln!(out, "    path: {}", m.dir.display())?;
        writeln!(
            out,
            "    content hash: {:016x}",
            hexforge_content::mod_hash(m)
        )?;
        if !m.boards.is_empty() {
            let boards: Vec<String> = m
                .boards
                .iter()
                .map(|b| match &b.rule {
                    Some(rule) => format!("{} ({rule})", b.id),
                    None => b.id.clone(),
                })
                .collect();
            writeln!(out, "    boards: {}", boards.join(", "))?;
        }
        for w in warnings_of(loaded, &m.dir) {
            writeln!(out, "    warning: {w}")?;
        }
    }
    for s in &loaded.skipped {
        let version = s
            .version
            .as_ref()
            .map_or("?".to_string(), |v| v.to_string());
        writeln!(out, "{:<16} {:<9} {:<8} -", s.id, version, "skipped")?;
        writeln!(out, "    {}", s.reason)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods explain army/tile`: the tile's history, definition first, then every patch in
/// load order, and the conflicts among them.
/// A module's or an aura's effects as the army file writes them (`melee = 1`, `medic`), none
/// for a tile that gives none.
fn effect_words(fx: &hexforge_core::tile::Effects) -> Vec<String> {
    let mut out = Vec::new();
    for (key, v) in [
        ("melee", fx.melee),
        ("ranged", fx.ranged),
        ("initiative", fx.initiative),
        ("enemy_initiative", fx.enemy_initiative),
    ] {
        if v != 0 {
            out.push(format!("{key} = {v}"));
        }
    }
    if fx.extra_attack > 0 {
        out.push(format!("extra_attack = {}", fx.extra_attack));
    }
    for (key, on) in [
        ("medic", fx.medic),
        ("hijack", fx.hijack),
        ("convert_attack", fx.convert_attack),
        ("mobility", fx.mobility),
    ] {
        if on {
            out.push(key.to_string());
        }
    }
    out
}

pub fn explain(out: &mut impl Write, loaded: &LoadedMods, tile: &str) -> Result<ExitCode> {
    let steps: Vec<_> = loaded.history.of(tile).collect();
    if steps.is_empty() {
        let known: Vec<&str> = loaded
            .history
            .changes
            .iter()
            .map(|(t, _)| t.as_str())
            .collect();
        bail!(
            "no tile `{tile}` was ever loaded{}: write `army/tile`, e.g. `moloch/juggernaut`",
            hexforge_core::names::did_you_mean(tile, known)
        );
    }
    writeln!(out, "{tile}")?;
    for c in &steps {
        let what = match c.field.as_str() {
            "defined" | "added" | "copied" | "removed" => c.field.clone(),
            f => format!("changes `{f}`"),
        };
        writeln!(
            out,
            "  {:<16} {what} ({}:{})",
            c.mod_id,
            c.at.file.display(),
            c.at.line
        )?;
    }
    for d in loaded
        .history
        .conflicts
        .iter()
        .filter(|d| d.message.contains(&format!("`{tile}`")))
    {
        writeln!(out, "  conflict: {d}")?;
    }
    if let Some(r) = loaded.catalog.find(tile) {
        let t = loaded.catalog.get(r);
        writeln!(
            out,
            "  now: {} x{}, initiative {:?}, toughness {}{}",
            t.name,
            t.count,
            t.initiative.values(),
            t.toughness,
            if t.mobile { ", mobile" } else { "" }
        )?;
        let edges = hexforge_content::edges::feature_strings(&t.edges);
        if !edges.is_empty() {
            writeln!(out, "  edges: {}", edges.join(", "))?;
        }
        for (table, fx) in [("module", &t.module), ("aura", &t.aura)] {
            let said = effect_words(fx);
            if !said.is_empty() {
                writeln!(out, "  {table}: {}", said.join(", "))?;
            }
        }
        if t.global.move_range > 0 {
            writeln!(out, "  global: move_range = {}", t.global.move_range)?;
        }
        if let Some(e) = t.instant {
            writeln!(out, "  instant: {}", e.name())?;
        }
        if let Some(l) = &t.linked {
            let parts: Vec<String> = l
                .parts
                .iter()
                .map(|p| {
                    let steps: Vec<String> =
                        p.steps.iter().map(|e| e.index().to_string()).collect();
                    format!("{} at [{}]", p.tile, steps.join(", "))
                })
                .collect();
            writeln!(
                out,
                "  linked: {} ({} lost, {}), parts {}",
                l.kind,
                l.loss.name(),
                if l.shared { "shared" } else { "not shared" },
                parts.join("; ")
            )?;
        }
        for a in &t.abilities {
            let params: Vec<String> = a.params.iter().map(|(k, v)| format!("{k} = {v}")).collect();
            if params.is_empty() {
                writeln!(out, "  ability: {}", a.hook)?;
            } else {
                writeln!(out, "  ability: {} ({})", a.hook, params.join(", "))?;
            }
        }
    } else {
        writeln!(out, "  now: not in any army")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The warnings of the loaded mod in `dir` (a mod written for an earlier Hexforge, with what
/// changed since).
fn warnings_of<'a>(loaded: &'a LoadedMods, dir: &'a Path) -> impl Iterator<Item = &'a Diagnostic> {
    loaded
        .warnings
        .iter()
        .filter(move |w| w.file.starts_with(dir))
}

/// `hexforge mods check` without a path: every problem and warning of every mod, and the count.
pub fn check_all(out: &mut impl Write, loaded: &LoadedMods) -> Result<ExitCode> {
    for p in loaded.problems.iter() {
        writeln!(out, "{p}")?;
    }
    for w in &loaded.warnings {
        writeln!(out, "warning: {w}")?;
    }
    writeln!(
        out,
        "{} mod(s) loaded, {} skipped, {} problem(s), {} warning(s)",
        loaded.mods.len(),
        loaded.skipped.len(),
        loaded.problems.len(),
        loaded.warnings.len()
    )?;
    Ok(if loaded.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `hexforge mods check [PATH]`: every problem of the mod in `dir` (its manifest, armies,
/// dependencies and scripts), loaded together with the other mods it may depend on, then its
/// warnings; warnings alone do not fail the check.
pub fn check(out: &mut impl Write, loaded: &LoadedMods, dir: &Path) -> Result<ExitCode> {
    let dir = dir
        .canonicalize()
        .with_context(|| format!("{}: no such mod folder", dir.display()))?;
    let inside = |p: &Path| p.canonicalize().is_ok_and(|p| p.starts_with(&dir));
    let problems: Vec<String> = loaded
        .problems
        .iter()
        .filter(|d| inside(&d.file))
        .map(|d| d.to_string())
        .collect();
    let warnings: Vec<String> = loaded
        .warnings
        .iter()
        .filter(|d| inside(&d.file))
        .map(|d| format!("warning: {d}"))
        .collect();
    let Some(m) = loaded.mods.iter().find(|m| inside(&m.dir)) else {
        if problems.is_empty() {
            bail!(
                "{}: no mod.toml here: name a mod folder (one with a mod.toml), or create one with `hexforge mods new NAME`",
                dir.display()
            );
        }
        for p in &problems {
            writeln!(out, "{p}")?;
        }
        writeln!(out, "{} problem(s): the mod does not load", problems.len())?;
        return Ok(ExitCode::FAILURE);
    };
    for p in problems.iter().chain(&warnings) {
        writeln!(out, "{p}")?;
    }
    let tiles: usize = m.armies.iter().map(|a| a.tiles.len()).sum();
    let abilities: usize = m
        .armies
        .iter()
        .flat_map(|a| &a.tiles)
        .map(|t| t.abilities.len())
        .sum();
    // The game rules its scripts define (docs/RULESETS.md, "Game scripts"), when it has any.
    let rules = loaded
        .catalog
        .game_rules()
        .iter()
        .filter(|r| r.mod_id == m.id)
        .count();
    if problems.is_empty() {
        writeln!(
            out,
            "ok: mod {} {}: {} arm{}, {tiles} tile kinds, {abilities} abilities bound{}{}{}",
            m.id,
            m.manifest.version,
            m.armies.len(),
            if m.armies.len() == 1 { "y" } else { "ies" },
            match rules {
                0 => String::new(),
                1 => ", 1 game rule".to_string(),
                n => format!(", {n} game rules"),
            },
            // The test command names the folder, which works whatever `--mods` loaded it.
            match scenario_count(&m.dir) {
                0 => format!(
                    ", no scenarios yet (write them in {}: docs/SCENARIO_FORMAT.md)",
                    m.dir.join("scenarios").display()
                ),
                1 => format!(", 1 scenario (`hexforge mods test {}`)", m.dir.display()),
                n => format!(", {n} scenarios (`hexforge mods test {}`)", m.dir.display()),
            },
            match warnings.len() {
                0 => String::new(),
                n => format!("; {n} warning(s) above"),
            }
        )?;
        Ok(ExitCode::SUCCESS)
    } else {
        writeln!(out, "{} problem(s) in mod {}", problems.len(), m.id)?;
        Ok(ExitCode::FAILURE)
    }
}

/// `hexforge mods new NAME`: a mod folder `into/NAME` with a manifest, a 35-tile army and one
/// Lua ability, ready to edit (the template is `hexforge_content::scaffold::new_mod`); the play
/// command it prints loads `into` beside `roots` (the folders loaded by default) when they do not
/// hold it.
pub fn new(
    out: &mut impl Write,
    (name, needs): (&str, &[String]),
    into: &Path,
    roots: &[PathBuf],
) -> Result<ExitCode> {
    let deps = dependencies(needs, roots)?;
    let files = hexforge_content::scaffold::new_mod(into, name)?;
    let dir = into.join(name);
    if !deps.is_empty() {
        let manifest = dir.join("mod.toml");
        let mut text = std::fs::read_to_string(&manifest)
            .with_context(|| format!("cannot read {}", manifest.display()))?;
        text.push_str(
            "\n# The mods this one needs, loaded before it (docs/MODDING.md).\n[dependencies]\n",
        );
        for (id, req) in &deps {
            text.push_str(&format!("{id} = \"{req}\"\n"));
        }
        hexforge_content::write_atomically(&manifest, text)
            .with_context(|| format!("cannot write {}", manifest.display()))?;
    }
    writeln!(out, "created mod `{name}` in {}:", dir.display())?;
    for path in &files {
        writeln!(out, "  {}", path.display())?;
    }
    // The play command loads the new folder too when it is not among the folders loaded anyway.
    let loaded = roots.iter().any(|r| canonical(r) == canonical(into));
    let mods = if loaded {
        String::new()
    } else {
        roots
            .iter()
            .chain(std::iter::once(&into.to_path_buf()))
            .map(|r| format!("--mods {} ", canonical(r).display()))
            .collect()
    };
    writeln!(
        out,
        "check it with `hexforge mods check {}`, play it with `hexforge {mods}match --army {name} --army moloch`",
        dir.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `--needs MOD[@REQ]` of `mods new`, each a loaded mod (refused with the closest id and the
/// loaded ones otherwise), with its requirement: the one given, or the loaded version's major
/// (`^1`; `^0.2` for a version below 1).
fn dependencies(needs: &[String], roots: &[PathBuf]) -> Result<Vec<(String, String)>> {
    if needs.is_empty() {
        return Ok(Vec::new());
    }
    let loaded = hexforge_content::load_mods(roots);
    let mut out: Vec<(String, String)> = Vec::new();
    for need in needs {
        let (id, req) = match need.split_once('@') {
            Some((id, req)) => (id, Some(req)),
            None => (need.as_str(), None),
        };
        let Some(m) = loaded.mods.iter().find(|m| m.id == id) else {
            let ids: Vec<&str> = loaded.mods.iter().map(|m| m.id.as_str()).collect();
            bail!(
                "--needs {need}: no mod `{id}` is loaded{}: the loaded mods are {}",
                hexforge_core::names::did_you_mean(id, ids.iter().copied()),
                ids.join(", ")
            );
        };
        let v = &m.manifest.version;
        let req = match req {
            Some(r) => {
                semver_req(r).with_context(|| {
                    format!("--needs {need}: `{r}` is not a version requirement: write e.g. ^1 or >=1.2, <2")
                })?;
                r.to_string()
            }
            None if v.major > 0 => format!("^{}", v.major),
            None => format!("^{}.{}", v.major, v.minor),
        };
        if !out.iter().any(|(d, _)| d == id) {
            out.push((id.to_string(), req));
        }
    }
    Ok(out)
}

/// Checks a version requirement as manifests read them.
fn semver_req(r: &str) -> Result<()> {
    semver::VersionReq::parse(r)?;
    Ok(())
}

/// The `scenarios/` folder of the loaded mod `which` (its id, or its folder), for `hexforge mods
/// test`; an error says what to do when the mod is not loaded or ships none.
pub fn scenario_folder(loaded: &LoadedMods, which: &str) -> Result<PathBuf> {
    let m = loaded
        .mods
        .iter()
        .find(|m| m.id == which || canonical(&m.dir) == canonical(Path::new(which)))
        .ok_or_else(|| {
            let ids: Vec<&str> = loaded.mods.iter().map(|m| m.id.as_str()).collect();
            anyhow::anyhow!(
                "`{which}` is not a loaded mod{}: name one of {} or give a mod folder (`hexforge mods check {which}` says why one does not load)",
                hexforge_core::names::did_you_mean(which, ids.iter().copied()),
                ids.join(", ")
            )
        })?;
    let dir = m.dir.join("scenarios");
    if !dir.is_dir() {
        bail!(
            "mod `{}` ships no scenarios: write scenario files (docs/SCENARIO_FORMAT.md) in {} and run `hexforge mods test {}` again",
            m.id,
            dir.display(),
            m.id
        );
    }
    Ok(dir)
}

/// How many scenario files (`*.toml`, any depth) the mod folder `dir` ships in `scenarios/`.
fn scenario_count(dir: &Path) -> usize {
    fn count(dir: &Path) -> usize {
        std::fs::read_dir(dir).map_or(0, |rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .map(|p| {
                    if p.is_dir() {
                        count(&p)
                    } else {
                        usize::from(p.extension().is_some_and(|x| x == "toml"))
                    }
                })
                .sum()
        })
    }
    count(&dir.join("scenarios"))
}

/// `hexforge mods pack MOD`: the archive of a loaded mod (by id) or of a mod folder (by path),
/// written to `to` (default: `ID-VERSION.hexmod` in the current folder).
pub fn pack(
    out: &mut impl Write,
    loaded: &LoadedMods,
    which: &str,
    to: Option<&Path>,
) -> Result<ExitCode> {
    let m = mod_named(loaded, which)?;
    let archive = hexforge_content::archive::pack(&m)?;
    let path = to.map_or_else(|| archive.file_name().into(), Path::to_path_buf);
    let bytes = archive.to_bytes();
    // Written beside, then put in place: a file already there stays whole if writing fails.
    let part = path.with_extension("hexmod.part");
    std::fs::write(&part, &bytes)
        .and_then(|()| std::fs::rename(&part, &path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    writeln!(
        out,
        "packed `{}` {} #{:016x} ({} files, {} bytes; the archive {} bytes) into {}",
        archive.id,
        archive.version,
        archive.hash,
        archive.files.len(),
        archive.size(),
        bytes.len(),
        path.display()
    )?;
    writeln!(
        out,
        "a friend installs it with `hexforge mods install {}`",
        path.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The mod `which` names: a loaded mod's id, or a mod folder (loaded on its own); refused with
/// the loaded mods' ids otherwise.
pub fn mod_named(loaded: &LoadedMods, which: &str) -> Result<hexforge_content::ModInfo> {
    match loaded.mods.iter().find(|m| m.id == which) {
        Some(m) => Ok(m.clone()),
        None if Path::new(which).join("mod.toml").is_file() => {
            hexforge_content::load_mod(Path::new(which))
                .map_err(|d| anyhow::anyhow!("{which} does not load, so it is not packed:\n{d}"))
        }
        None => {
            let ids: Vec<&str> = loaded.mods.iter().map(|m| m.id.as_str()).collect();
            bail!(
                "`{which}` is neither a loaded mod nor a mod folder (a folder with a mod.toml); the loaded mods are: {}",
                ids.join(", ")
            );
        }
    }
}

/// Asks `question` on `input` (a `y` or `yes` line agrees; anything else, or no line, does not).
pub fn confirm(out: &mut impl Write, input: &mut impl std::io::BufRead, question: &str) -> bool {
    let _ = write!(out, "{question} [y/N] ");
    let _ = out.flush();
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(n) if n > 0 => matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
        _ => false,
    }
}

/// `hexforge mods install FILE`: reads the archive (refused when malformed, damaged or with a
/// path outside its folder), says what it holds and where it goes, asks unless `yes`, and
/// installs it into `into` (the folder a mod of that id is set aside from, never deleted).
pub fn install(
    out: &mut impl Write,
    input: &mut impl std::io::BufRead,
    file: &Path,
    into: &Path,
    yes: bool,
) -> Result<ExitCode> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    let archive = hexforge_content::archive::read(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let target = into.join(&archive.id);
    let replacing = if target.exists() {
        format!(
            " (the folder there now is set aside in {})",
            into.join(".replaced").display()
        )
    } else {
        String::new()
    };
    let question = format!(
        "install `{}` {} #{:016x} ({} files, {} bytes) into {}{replacing}?",
        archive.id,
        archive.version,
        archive.hash,
        archive.files.len(),
        archive.size(),
        target.display()
    );
    if !yes && !confirm(out, input, &question) {
        writeln!(out, "not installed")?;
        return Ok(ExitCode::FAILURE);
    }
    let done = hexforge_content::archive::install(&archive, into, None)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    hexforge_content::archive::keep(into, &archive)?;
    writeln!(
        out,
        "installed `{}` {} into {}",
        archive.id,
        archive.version,
        done.dir.display()
    )?;
    if let Some(old) = done.set_aside {
        writeln!(out, "the folder it replaced is kept in {}", old.display())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods remove ID`: names the loaded mods that require it, asks unless `yes`, and sets
/// the folder `from/ID` aside in `from/.replaced/` (never deleted). Refused, with the mods
/// installed there, when `from` holds no mod of that id.
pub fn remove(
    out: &mut impl Write,
    input: &mut impl std::io::BufRead,
    loaded: &LoadedMods,
    (id, from): (&str, &Path),
    yes: bool,
) -> Result<ExitCode> {
    let dir = hexforge_content::archive::installed_folder(from, id)?;
    let needing: Vec<&str> = loaded
        .mods
        .iter()
        .filter(|m| {
            m.manifest
                .dependencies
                .iter()
                .any(|d| d.id == id && d.kind == hexforge_content::manifest::DepKind::Required)
        })
        .map(|m| m.id.as_str())
        .collect();
    let one = needing.len() == 1;
    let named = format!(
        "`{}` {}",
        needing.join("`, `"),
        if one { "needs" } else { "need" }
    );
    let warning = if needing.is_empty() {
        String::new()
    } else {
        format!(
            " (the loaded {} {named} it and will be skipped)",
            if one { "mod" } else { "mods" }
        )
    };
    let question = format!(
        "remove `{id}` from {}{warning}? Its folder is kept in {}",
        dir.display(),
        from.join(".replaced").display()
    );
    if !yes && !confirm(out, input, &question) {
        writeln!(out, "not removed")?;
        return Ok(ExitCode::FAILURE);
    }
    let kept = hexforge_content::archive::remove(from, id)?;
    writeln!(
        out,
        "removed `{id}`; its folder is kept in {}",
        kept.display()
    )?;
    if !needing.is_empty() {
        writeln!(
            out,
            "warning: {named} `{id}`: {} skipped until it is installed again",
            if one { "it is" } else { "they are" }
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// After an install into `into`: warns when a mod of the archive's id is also found in another
/// of the mods folders `roots`, since two mods of one id do not load together.
pub fn warn_twice(out: &mut impl Write, roots: &[PathBuf], into: &Path, file: &Path) -> Result<()> {
    let Ok(archive) = std::fs::read(file).map(|b| hexforge_content::archive::read(&b)) else {
        return Ok(());
    };
    let Ok(archive) = archive else {
        return Ok(());
    };
    for dir in hexforge_content::mod_dirs(roots, &mut Vec::new()) {
        if canonical(&dir) == canonical(&into.join(&archive.id)) {
            continue;
        }
        if hexforge_content::load_manifest(&dir).is_ok_and(|m| m.id == archive.id) {
            writeln!(
                out,
                "warning: a mod `{}` is also in {}: two mods of one id do not load together; \
                 install with `--into {}` to replace that one instead",
                archive.id,
                dir.display(),
                dir.parent().unwrap_or(&dir).display()
            )?;
        }
    }
    Ok(())
}

//! The mod portal from the command line (docs/PORTAL.md): `hexforge portal serve` and `portal
//! author` on the portal's machine; `hexforge mods publish`, `search`, `install NAME --portal`,
//! `list --outdated` and `update` on a modder's or a player's.

use anyhow::{Context as _, Result, bail};
use hexforge_content::LoadedMods;
use hexforge_portal::client::Step;
use hexforge_portal::{Portal, Store, plan};
use semver::{Version, VersionReq};
use std::io::Write;
use std::net::TcpListener;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The environment variable a publishing token may be given in instead of `--token`.
pub const TOKEN_VAR: &str = "HEXFORGE_PORTAL_TOKEN";

/// `hexforge portal serve`: opens the data folder and serves it, over TLS with `tls` (the
/// certificate's and the key's PEM files); the first line says where.
pub fn serve(
    out: &mut impl Write,
    data: &Path,
    (bind, port): (&str, u16),
    tls: Option<(&Path, &Path)>,
) -> Result<ExitCode> {
    let store = Store::open(data).with_context(|| format!("cannot open {}", data.display()))?;
    let tls = match tls {
        Some((cert, key)) => Some(Arc::new(hexforge_portal::tls::server_config(cert, key)?)),
        None => None,
    };
    let listener = TcpListener::bind((bind, port)).with_context(|| {
        format!("cannot listen on {bind}:{port} (--bind must be an address of this machine, e.g. 127.0.0.1 or 0.0.0.0, and the port a free one: choose another with --port, or 0 for any free one)")
    })?;
    let at = listener.local_addr()?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    writeln!(
        out,
        "portal: serving {} on {scheme}://{at} (install with `hexforge mods install ID --portal {scheme}://{at}`)",
        data.display()
    )?;
    out.flush()?;
    hexforge_portal::server::serve_with(
        listener,
        Arc::new(store),
        Arc::new(AtomicBool::new(false)),
        tls,
    );
    Ok(ExitCode::SUCCESS)
}

/// `hexforge portal author NAME`: adds an author to the portal's data folder and prints their
/// token, once.
pub fn author(out: &mut impl Write, data: &Path, name: &str) -> Result<ExitCode> {
    let store = Store::open(data).with_context(|| format!("cannot open {}", data.display()))?;
    let token = store.add_author(name)?;
    writeln!(out, "{token}")?;
    writeln!(
        out,
        "the token of `{name}`: give it to them, it is not shown again (they publish with `hexforge mods publish MOD --portal URL --token TOKEN`, or with {TOKEN_VAR} set)"
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods publish MOD --portal URL`: packs the mod (a loaded mod's id or a folder) and
/// publishes it with the author's token.
pub fn publish(
    out: &mut impl Write,
    loaded: &LoadedMods,
    which: &str,
    portal: &str,
    token: Option<&str>,
) -> Result<ExitCode> {
    let token = match token
        .map(str::to_string)
        .or_else(|| std::env::var(TOKEN_VAR).ok())
    {
        Some(t) if !t.trim().is_empty() => t,
        _ => bail!(
            "publishing needs the author's token: give --token TOKEN or set {TOKEN_VAR} (the portal's keeper makes one with `hexforge portal author NAME`)"
        ),
    };
    let m = crate::modcmd::mod_named(loaded, which)?;
    let archive = hexforge_content::archive::pack(&m)?;
    let p = Portal::new(portal)
        .publish(token.trim(), &archive.to_bytes())
        .map_err(|e| {
            anyhow::anyhow!(
                "{portal}: `{}` {} not published: {e}",
                archive.id,
                archive.version
            )
        })?;
    writeln!(
        out,
        "published `{}` {} #{} on {portal}",
        p.id, p.version, p.hash
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods search [TEXT] --portal URL`: a line per mod.
pub fn search(out: &mut impl Write, portal: &str, text: &str) -> Result<ExitCode> {
    let found = Portal::new(portal)
        .search(text)
        .map_err(|e| anyhow::anyhow!("{portal}: {e}"))?;
    if found.is_empty() {
        writeln!(out, "no mod on {portal} matches `{text}`")?;
    }
    for m in &found {
        writeln!(
            out,
            "{} {} by {} ({} downloads): {}",
            m.id, m.latest, m.author, m.downloads, m.description
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `NAME` or `NAME@VERSION`: the id and the versions accepted.
fn named(spec: &str) -> Result<(String, VersionReq)> {
    match spec.split_once('@') {
        Some((id, v)) => {
            let v = Version::parse(v).with_context(|| {
                format!("`{spec}`: `{v}` is not a version: write NAME@1.2.0, or NAME alone for the newest")
            })?;
            Ok((id.to_string(), VersionReq::parse(&format!("={v}"))?))
        }
        None => Ok((spec.to_string(), VersionReq::STAR)),
    }
}

/// Whether a mod `id` at a version `req` accepts is among `loaded`.
fn has(loaded: &LoadedMods, id: &str, req: &VersionReq) -> bool {
    loaded
        .mods
        .iter()
        .any(|m| m.id == id && req.matches(&m.manifest.version))
}

/// Installs the steps of a plan, dependencies first, each checked against the hash the portal
/// lists and unpacked aside before it takes its place; asks first unless `yes`.
fn carry_out(
    out: &mut impl Write,
    input: &mut impl std::io::BufRead,
    portal: &Portal,
    steps: &[Step],
    into: &Path,
    yes: bool,
) -> Result<ExitCode> {
    let listed: Vec<String> = steps
        .iter()
        .map(|s| format!("`{}` {}", s.id, s.version.version))
        .collect();
    let question = format!(
        "install {} from {} into {}?",
        listed.join(", "),
        portal.address(),
        into.display()
    );
    if !yes && !crate::modcmd::confirm(out, input, &question) {
        writeln!(out, "not installed")?;
        return Ok(ExitCode::FAILURE);
    }
    // One step at a time, so that what was installed is said even when a later step fails.
    for s in steps {
        let done = hexforge_portal::client::install_steps(portal, std::slice::from_ref(s), into)
            .map_err(|e| anyhow::anyhow!("{}: {e}", portal.address()))?;
        for d in done {
            writeln!(
                out,
                "installed `{}` {} into {}",
                d.id,
                d.version,
                into.join(&d.id).display()
            )?;
            if let Some(old) = d.set_aside {
                writeln!(out, "the folder it replaced is kept in {}", old.display())?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods install NAME[@VERSION] --portal URL`: the mod and every mod it needs that is
/// not loaded yet at a version it accepts, newest matching first.
pub fn install(
    out: &mut impl Write,
    input: &mut impl std::io::BufRead,
    loaded: &LoadedMods,
    (spec, portal, into): (&str, &str, &Path),
    yes: bool,
) -> Result<ExitCode> {
    let (id, req) = named(spec)?;
    let portal = Portal::new(portal);
    let steps = plan(&portal, &id, &req, &|d, r| has(loaded, d, r)).map_err(|e| {
        // A misspelt name: the closest one the portal has.
        let near = match &e {
            hexforge_portal::PortalError::NotFound(_) => portal
                .search("")
                .map(|all| {
                    hexforge_core::names::did_you_mean(&id, all.iter().map(|m| m.id.as_str()))
                })
                .unwrap_or_default(),
            _ => String::new(),
        };
        anyhow::anyhow!("{}: {e}{near}", portal.address())
    })?;
    carry_out(out, input, &portal, &steps, into, yes)
}

/// The mods installed in `from` that the portal has a newer version of: id, installed, newest.
fn outdated(portal: &Portal, from: &Path) -> Result<Vec<(String, Version, Version)>> {
    let mut found = Vec::new();
    for id in hexforge_content::archive::installed(from) {
        let Ok(m) = hexforge_content::load_manifest(&from.join(&id)) else {
            continue;
        };
        let Ok(d) = portal.detail(&id) else {
            continue;
        };
        if let Some(newest) = d
            .versions
            .iter()
            .filter_map(|v| Version::parse(&v.version).ok())
            .max()
            && newest > m.version
        {
            found.push((id, m.version, newest));
        }
    }
    Ok(found)
}

/// `hexforge mods list --outdated --portal URL`: the installed mods the portal has a newer
/// version of.
pub fn list_outdated(out: &mut impl Write, portal: &str, from: &Path) -> Result<ExitCode> {
    let found = outdated(&Portal::new(portal), from)?;
    if found.is_empty() {
        writeln!(
            out,
            "every mod in {} is up to date with {portal}",
            from.display()
        )?;
    }
    for (id, have, newest) in &found {
        writeln!(out, "{id} {have} -> {newest}")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `hexforge mods update [ID] --portal URL`: installs the newest version of each outdated mod
/// of `into` (or of `only`), with what it needs; each folder replaced is set aside.
pub fn update(
    out: &mut impl Write,
    input: &mut impl std::io::BufRead,
    loaded: &LoadedMods,
    (only, portal, into): (Option<&str>, &str, &Path),
    yes: bool,
) -> Result<ExitCode> {
    let p = Portal::new(portal);
    let found: Vec<_> = outdated(&p, into)?
        .into_iter()
        .filter(|(id, _, _)| only.is_none_or(|o| o == id))
        .collect();
    if found.is_empty() {
        writeln!(
            out,
            "nothing to update: {} is up to date with {portal}",
            only.map_or_else(|| into.display().to_string(), |o| format!("`{o}`"))
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut steps: Vec<Step> = Vec::new();
    for (id, _, newest) in &found {
        let req = VersionReq::parse(&format!("={newest}"))?;
        for s in plan(&p, id, &req, &|d, r| has(loaded, d, r))
            .map_err(|e| anyhow::anyhow!("{portal}: {e}"))?
        {
            if !steps.iter().any(|x| x.id == s.id) {
                steps.push(s);
            }
        }
    }
    carry_out(out, input, &p, &steps, into, yes)
}

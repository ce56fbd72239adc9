//! The portal as the CLI (and any other front end) talks to it: search, a mod's versions, an
//! archive downloaded and checked against the hash the portal lists, publication with a token,
//! and the plan of what installing a mod needs (its dependencies, newest matching versions
//! first, cycles refused).

use crate::error::PortalError;
use crate::http::{encode, send_via};
use crate::store::{ModDetail, ModSummary, Published, VersionInfo};
use hexforge_content::archive::{self, Archive};
use semver::{Version, VersionReq};

/// A portal at an `http://HOST:PORT` or `https://HOST[:PORT]` address.
#[derive(Clone, Debug)]
pub struct Portal {
    base: String,
    /// The TLS configuration for an `https://` address (`None`: [`crate::tls::client_config`],
    /// Mozilla's roots and `HEXFORGE_CA_FILE`'s).
    tls: Option<std::sync::Arc<rustls::ClientConfig>>,
}

/// The largest JSON answer read.
const MAX_JSON: usize = 8 * 1024 * 1024;

impl Portal {
    /// The portal at `address` (`http://127.0.0.1:7878`, a trailing `/` or not).
    pub fn new(address: &str) -> Portal {
        Portal {
            base: address.trim_end_matches('/').to_string(),
            tls: None,
        }
    }

    /// The same portal reached with the TLS configuration `config` (trusting other
    /// authorities than the default ones, [`crate::tls::config_with`]).
    pub fn with_tls(self, config: std::sync::Arc<rustls::ClientConfig>) -> Portal {
        Portal {
            tls: Some(config),
            ..self
        }
    }

    /// Its address.
    pub fn address(&self) -> &str {
        &self.base
    }

    /// A GET of `path` answered 200, its body; otherwise the portal's error.
    fn get(&self, path: &str, max: usize) -> Result<Vec<u8>, PortalError> {
        let (status, body) = send_via(
            self.tls.as_ref(),
            ("GET", &format!("{}{path}", self.base)),
            &[],
            &[],
            max,
        )?;
        if status == 200 {
            Ok(body)
        } else {
            Err(PortalError::from_answer(status, &body))
        }
    }

    /// The mods whose id, name or description holds `text`.
    pub fn search(&self, text: &str) -> Result<Vec<ModSummary>, PortalError> {
        let body = self.get(&format!("/api/mods?q={}", encode(text)), MAX_JSON)?;
        serde_json::from_slice(&body).map_err(|e| PortalError::Http(format!("a bad answer: {e}")))
    }

    /// A mod with its versions, newest first.
    pub fn detail(&self, id: &str) -> Result<ModDetail, PortalError> {
        let body = self.get(&format!("/api/mods/{}", encode(id)), MAX_JSON)?;
        serde_json::from_slice(&body).map_err(|e| PortalError::Http(format!("a bad answer: {e}")))
    }

    /// The archive of `id` `v`, read and checked against the content hash the portal lists.
    pub fn download(&self, id: &str, v: &VersionInfo) -> Result<Archive, PortalError> {
        let body = self.get(
            &format!("/api/mods/{}/{}/archive", encode(id), encode(&v.version)),
            crate::server::MAX_BODY,
        )?;
        let a = archive::read(&body).map_err(|e| PortalError::BadArchive(e.to_string()))?;
        if a.id != id || a.version != v.version || format!("{:016x}", a.hash) != v.hash {
            return Err(PortalError::BadArchive(format!(
                "the portal listed `{id}` {} #{}, but the archive holds `{}` {} #{:016x}",
                v.version, v.hash, a.id, a.version, a.hash
            )));
        }
        Ok(a)
    }

    /// The archive of `id` at exactly `version` (what a network match or a replay names),
    /// checked as [`Portal::download`] checks it; [`PortalError::NotFound`] when the portal has
    /// no such version.
    pub fn exact(&self, id: &str, version: &str) -> Result<Archive, PortalError> {
        let detail = self.detail(id)?;
        let v = detail
            .versions
            .iter()
            .find(|v| v.version == version)
            .ok_or_else(|| {
                PortalError::NotFound(format!(
                    "{} has no version {version} of `{id}` (it has {})",
                    self.base,
                    if detail.versions.is_empty() {
                        "none".to_string()
                    } else {
                        detail
                            .versions
                            .iter()
                            .map(|v| v.version.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ))
            })?;
        self.download(id, v)
    }

    /// What fetches a network match's mods from the portal at `address`, each at exactly the
    /// version asked (`hexforge join --fetch-mods --portal`, the editor's Play tab): the
    /// archive's bytes, or why not, naming the portal; `fetched` is told ``fetched `ID` VERSION
    /// from ADDRESS`` of each.
    pub fn exact_source<'a>(
        address: String,
        mut fetched: impl FnMut(&str) + 'a,
    ) -> impl FnMut(&str, &str) -> Result<Vec<u8>, String> + 'a {
        move |id: &str, version: &str| {
            let a = Portal::new(&address)
                .exact(id, version)
                .map_err(|e| format!("{address}: {e}"))?;
            fetched(&format!("fetched `{id}` {version} from {address}"));
            Ok(a.to_bytes())
        }
    }

    /// Publishes the archive `bytes` with the author's `token`.
    pub fn publish(&self, token: &str, bytes: &[u8]) -> Result<Published, PortalError> {
        let auth = format!("Bearer {token}");
        let (status, body) = send_via(
            self.tls.as_ref(),
            ("POST", &format!("{}/api/mods", self.base)),
            &[("Authorization", &auth)],
            bytes,
            MAX_JSON,
        )?;
        if status == 201 {
            serde_json::from_slice(&body)
                .map_err(|e| PortalError::Http(format!("a bad answer: {e}")))
        } else {
            Err(PortalError::from_answer(status, &body))
        }
    }
}

/// The newest version of `d` that `req` accepts.
pub fn newest<'a>(d: &'a ModDetail, req: &VersionReq) -> Option<&'a VersionInfo> {
    d.versions
        .iter()
        .filter(|v| Version::parse(&v.version).is_ok_and(|x| req.matches(&x)))
        .max_by_key(|v| Version::parse(&v.version).ok())
}

/// One mod to install: its id and the version picked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The mod's id.
    pub id: String,
    /// The version picked.
    pub version: VersionInfo,
}

/// What installing `id` (the newest version `req` accepts) needs, dependencies first: every
/// required mod that `have` does not already provide at an accepted version, each at the newest
/// version the portal has that every requirement met so far accepts. A dependency the portal
/// lacks, or no version matching, or a cycle, is refused with the chain that leads to it.
pub fn plan(
    portal: &Portal,
    id: &str,
    req: &VersionReq,
    have: &dyn Fn(&str, &VersionReq) -> bool,
) -> Result<Vec<Step>, PortalError> {
    let mut out = Vec::new();
    let mut chain = Vec::new();
    visit(portal, id, req, have, &mut chain, &mut out)?;
    Ok(out)
}

fn visit(
    portal: &Portal,
    id: &str,
    req: &VersionReq,
    have: &dyn Fn(&str, &VersionReq) -> bool,
    chain: &mut Vec<String>,
    out: &mut Vec<Step>,
) -> Result<(), PortalError> {
    if chain.iter().any(|c| c == id) {
        chain.push(id.to_string());
        return Err(PortalError::Refused(format!(
            "a dependency cycle: {}: nothing was installed",
            chain.join(" needs ")
        )));
    }
    if let Some(step) = out.iter().find(|s| s.id == id) {
        let v = Version::parse(&step.version.version).ok();
        if v.is_some_and(|v| req.matches(&v)) {
            return Ok(());
        }
        return Err(PortalError::Refused(format!(
            "`{id}` is needed at {req} and at {} ({}): no one version fits both",
            step.version.version,
            chain.join(" needs ")
        )));
    }
    if !chain.is_empty() && have(id, req) {
        return Ok(());
    }
    let detail = portal.detail(id).map_err(|e| match e {
        PortalError::NotFound(_) if !chain.is_empty() => PortalError::Refused(format!(
            "`{}` needs `{id}` {req}, which {} does not have: install it by hand, then again",
            chain.last().map_or("", String::as_str),
            portal.address()
        )),
        e => e,
    })?;
    let Some(v) = newest(&detail, req) else {
        let listed: Vec<&str> = detail.versions.iter().map(|v| v.version.as_str()).collect();
        return Err(PortalError::Refused(format!(
            "no version of `{id}` matches {req} (the portal has {})",
            listed.join(", ")
        )));
    };
    chain.push(id.to_string());
    for dep in &v.dependencies {
        let dreq = VersionReq::parse(&dep.req).map_err(|e| {
            PortalError::Refused(format!("`{id}` needs `{}` `{}`: {e}", dep.id, dep.req))
        })?;
        visit(portal, &dep.id, &dreq, have, chain, out)?;
    }
    chain.pop();
    out.push(Step {
        id: id.to_string(),
        version: v.clone(),
    });
    Ok(())
}

/// What installing one step did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Done {
    /// The mod's id.
    pub id: String,
    /// The version installed.
    pub version: String,
    /// Where the folder it replaced was set aside, if there was one.
    pub set_aside: Option<std::path::PathBuf>,
}

/// Carries out a plan into the mods folder `into`, dependencies first: each archive downloaded
/// and checked against the hash the portal lists, installed (unpacked aside, loaded, renamed in
/// place; a folder it replaces set aside) and kept on the folder's shelf of versions
/// (`archive::keep`). Stops at the first failure; what was installed before it stays, whole.
pub fn install_steps(
    portal: &Portal,
    steps: &[Step],
    into: &std::path::Path,
) -> Result<Vec<Done>, PortalError> {
    let mut done = Vec::new();
    for s in steps {
        let a = portal.download(&s.id, &s.version)?;
        let installed = archive::install(&a, into, Some(a.hash))
            .map_err(|e| PortalError::Refused(format!("`{}` {}: {e}", s.id, s.version.version)))?;
        archive::keep(into, &a)
            .map_err(|e| PortalError::Io(format!("`{}` {}: {e}", s.id, s.version.version)))?;
        done.push(Done {
            id: s.id.clone(),
            version: s.version.version.clone(),
            set_aside: installed.set_aside,
        });
    }
    Ok(done)
}

//! Mod manifests (`mod.toml`): the raw `ModManifestDef` from TOML, and its validation into a
//! `Manifest` with semantic versions, the Hexforge versions it supports and its dependencies.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml_every};
use semver::{Version, VersionReq};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use toml::Spanned;

/// The version of this engine, which mods name in `hexforge = "..."`.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// A `mod.toml` as parsed, before validation, with the positions of the values checked later.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ModManifestDef {
    /// The mod's snake_case id, unique among the mods found.
    pub id: Spanned<String>,
    /// The mod's name as mod lists show it; other mods refer to the id.
    pub name: String,
    /// The mod's own version, which must be semantic (`1.2.0`).
    pub version: Spanned<String>,
    /// A line for mod lists; empty when omitted.
    #[serde(default)]
    pub description: String,
    /// Who wrote the mod, for mod lists.
    #[serde(default)]
    pub authors: Vec<String>,
    /// The Hexforge versions the mod works with, e.g. `">=0.1, <0.3"` (default: any).
    pub hexforge: Option<Spanned<String>>,
    /// Mods that must be loaded first, by id, with a version requirement.
    #[serde(default)]
    pub dependencies: BTreeMap<String, Spanned<String>>,
    /// Mods loaded first if present; the mod loads without them.
    #[serde(default)]
    pub optional_dependencies: BTreeMap<String, Spanned<String>>,
    /// Mods that must not be loaded with this one.
    #[serde(default)]
    pub incompatible: BTreeMap<String, Spanned<String>>,
    /// What the mod says it provides; checked against its files when given.
    pub provides: Option<Spanned<ProvidesDef>>,
}

/// The raw `[provides]` table: what the mod declares it ships.
#[derive(Deserialize, Debug, Default)]
#[serde(deny_unknown_fields)]
pub struct ProvidesDef {
    /// The ids of its armies (`armies/*.toml`).
    #[serde(default)]
    pub armies: Vec<String>,
    /// Whether the mod has Lua scripts (`scripts/`).
    #[serde(default)]
    pub scripts: bool,
    /// The ids of its rule presets (`rules/*.toml`).
    #[serde(default)]
    pub presets: Vec<String>,
}

/// How a mod depends on another.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DepKind {
    /// Listed under `dependencies`: must be loaded first, or this mod is skipped.
    Required,
    /// Listed under `optional_dependencies`: loaded first when present.
    Optional,
    /// Listed under `incompatible`: this mod is skipped when that one loads.
    Incompatible,
}

impl DepKind {
    /// The manifest table that lists this kind of dependency, for messages.
    pub const fn name(self) -> &'static str {
        match self {
            DepKind::Required => "dependencies",
            DepKind::Optional => "optional_dependencies",
            DepKind::Incompatible => "incompatible",
        }
    }
}

/// Another mod a manifest names, with the versions meant and how this mod depends on it.
#[derive(Clone, Debug, PartialEq)]
pub struct Dependency {
    /// The other mod's id.
    pub id: String,
    /// The versions of the other mod it applies to.
    pub req: VersionReq,
    /// Whether the other mod is needed, loaded first when present, or refused.
    pub kind: DepKind,
    /// Where the manifest names it, for reports (the message is empty).
    pub at: Diagnostic,
}

/// What a mod provides, as its manifest declares it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Provides {
    /// The ids of the armies it declares.
    pub armies: Vec<String>,
    /// Whether it declares Lua scripts.
    pub scripts: bool,
    /// The ids of the rule presets it declares.
    pub presets: Vec<String>,
    /// Where `[provides]` is, for reports (the message is empty).
    pub at: Option<Diagnostic>,
}

/// A `mod.toml` that passed validation: versions parsed, dependencies listed, positions kept.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The mod's snake_case id, unique among loaded mods.
    pub id: String,
    /// The mod's name as mod lists show it; other mods refer to the id.
    pub name: String,
    /// The mod's own semantic version; dependencies name a requirement on it.
    pub version: Version,
    /// A line for mod lists; may be empty.
    pub description: String,
    /// Who wrote the mod.
    pub authors: Vec<String>,
    /// The engine versions the mod works with; the mod is skipped by any other.
    pub hexforge: VersionReq,
    /// Where `hexforge` is, when given (the message is empty).
    pub hexforge_at: Option<Diagnostic>,
    /// Every required, optional and incompatible mod the manifest names.
    pub dependencies: Vec<Dependency>,
    /// What the mod declares it provides, when it has a `[provides]` table.
    pub provides: Option<Provides>,
    /// Where `id` is, for reports (the message is empty).
    pub at: Diagnostic,
}

impl fmt::Display for Manifest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.id, self.version)
    }
}

/// Reads and validates `dir/mod.toml`; every problem of the file is reported at once.
pub fn load_manifest(dir: &Path) -> Result<Manifest, Diagnostics> {
    let path = dir.join("mod.toml");
    let text = crate::diagnostic::read_text(&path, "mod manifest").map_err(|mut d| {
        if d.line == 0 {
            d.message.push_str(" (every mod folder needs a mod.toml)");
        }
        d
    })?;
    parse_manifest(&SourceText::new(&path, text))
}

/// Parses then validates a manifest's text.
pub fn parse_manifest(src: &SourceText) -> Result<Manifest, Diagnostics> {
    let def: ModManifestDef = parse_toml_every(src)?;
    let mut errors = Vec::new();
    let id = def.id.get_ref();
    if !crate::scaffold::valid_id(id) {
        errors.push(src.error(
            def.id.span(),
            format!(
                "mod id `{}` is not snake_case: use lowercase letters, digits and _, starting with a letter, at most {} characters",
                id.chars().take(crate::scaffold::MAX_ID_LEN).collect::<String>(),
                crate::scaffold::MAX_ID_LEN
            ),
        ));
    }
    let version = match Version::parse(def.version.get_ref()) {
        Ok(v) => v,
        Err(_) => {
            errors.push(src.error(
                def.version.span(),
                format!(
                    "version `{}` is not a semantic version: write MAJOR.MINOR.PATCH, e.g. \"1.0.0\"",
                    def.version.get_ref()
                ),
            ));
            Version::new(0, 0, 0)
        }
    };
    let mut req = |s: &Spanned<String>, what: &str| match VersionReq::parse(s.get_ref()) {
        Ok(r) => Some(r),
        Err(_) => {
            errors.push(src.error(
                s.span(),
                format!(
                    "{what}: `{}` is not a version requirement: write e.g. \">=1.0, <2\" or \"^1.2\"",
                    s.get_ref()
                ),
            ));
            None
        }
    };
    let hexforge = match &def.hexforge {
        Some(h) => req(h, "hexforge").unwrap_or(VersionReq::STAR),
        None => VersionReq::STAR,
    };
    let mut dependencies = Vec::new();
    for (kind, table) in [
        (DepKind::Required, &def.dependencies),
        (DepKind::Optional, &def.optional_dependencies),
        (DepKind::Incompatible, &def.incompatible),
    ] {
        for (dep, r) in table {
            if let Some(parsed) = req(r, &format!("{} `{dep}`", kind.name())) {
                dependencies.push(Dependency {
                    id: dep.clone(),
                    req: parsed,
                    kind,
                    at: src.error(r.span(), ""),
                });
            }
        }
    }
    for d in &dependencies {
        if d.id == *id {
            errors.push(Diagnostic {
                message: format!("the mod names itself in `{}`", d.kind.name()),
                ..d.at.clone()
            });
        }
    }
    let texts = std::iter::once(("the mod's `name`", &def.name))
        .chain(std::iter::once((
            "the mod's `description`",
            &def.description,
        )))
        .chain(def.authors.iter().map(|a| ("an entry of `authors`", a)));
    for (what, text) in texts {
        if let Some(message) = crate::diagnostic::one_line_problem(what, text) {
            errors.push(src.error(def.id.span(), message));
        }
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| (d.line, d.column));
        return Err(Diagnostics(errors));
    }
    let provides = def.provides.as_ref().map(|p| Provides {
        armies: p.get_ref().armies.clone(),
        scripts: p.get_ref().scripts,
        presets: p.get_ref().presets.clone(),
        at: Some(src.error(p.span(), "")),
    });
    Ok(Manifest {
        id: id.clone(),
        name: def.name,
        version,
        description: def.description,
        authors: def.authors,
        hexforge,
        hexforge_at: def.hexforge.as_ref().map(|h| src.error(h.span(), "")),
        dependencies,
        provides,
        at: src.error(def.id.span(), ""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Manifest, Diagnostics> {
        parse_manifest(&SourceText::new("mods/x/mod.toml", text))
    }

    #[test]
    fn a_full_manifest_reads_its_versions_and_dependencies() {
        let m = parse(
            "id = \"raiders\"\nname = \"Raiders\"\nversion = \"1.2.3\"\nhexforge = \">=0.1, <0.3\"\n\n[dependencies]\nbase = \"^1\"\n\n[optional_dependencies]\nexamples = \">=1.0\"\n\n[incompatible]\nother = \"*\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.version, Version::new(1, 2, 3));
        assert!(m.hexforge.matches(&Version::new(0, 2, 9)));
        let kinds: Vec<(&str, DepKind)> = m
            .dependencies
            .iter()
            .map(|d| (d.id.as_str(), d.kind))
            .collect();
        assert_eq!(
            kinds,
            [
                ("base", DepKind::Required),
                ("examples", DepKind::Optional),
                ("other", DepKind::Incompatible)
            ]
        );
    }

    #[test]
    fn every_manifest_problem_is_located() {
        let err = parse(
            "id = \"Bad-Id\"\nname = \"X\"\nversion = \"1.0\"\n\n[dependencies]\nbase = \"not a version\"\n",
        )
        .expect_err("invalid");
        let text = err.to_string();
        assert!(
            text.contains("mods/x/mod.toml:1:6: mod id `Bad-Id`"),
            "{text}"
        );
        assert!(
            text.contains("mods/x/mod.toml:3:11: version `1.0`"),
            "{text}"
        );
        assert!(
            text.contains("mods/x/mod.toml:6:8: dependencies `base`"),
            "{text}"
        );
    }
}

//! What a joiner compares before a match starts: the host's header (a replay's header, sent line
//! by line) against its own engine version and loaded mods, mod by mod ([`differences`]), and
//! the header's lines as they travel ([`header_lines`], [`read_header`]).

use hexforge_content::{ENGINE_VERSION, ModInfo, mod_hash};
use hexforge_core::Catalog;
use hexforge_replay::{Header, Recorder, ReplayError, parse};
use std::fmt;

/// One way the content of this side differs from the host's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Difference {
    /// The host runs another Hexforge version.
    Engine {
        /// The host's version.
        host: String,
        /// This side's version.
        here: String,
    },
    /// A mod the host plays with is not loaded here.
    Missing {
        /// The mod's id.
        id: String,
        /// The host's version of it.
        version: String,
    },
    /// A mod is loaded here in another version.
    Version {
        /// The mod's id.
        id: String,
        /// The host's version and content hash.
        host: (String, u64),
        /// This side's version and content hash.
        here: (String, u64),
    },
    /// A mod is loaded here in the same version with other content (another content hash).
    Content {
        /// The mod's id.
        id: String,
        /// The version both sides have.
        version: String,
        /// The host's content hash.
        host: u64,
        /// This side's content hash.
        here: u64,
        /// The files that differ in play (`PATH changed`, `PATH is new`, `PATH is gone`), when
        /// the host's header lists its files.
        files: Vec<String>,
    },
    /// A mod is loaded here that the host does not play with.
    Extra {
        /// The mod's id.
        id: String,
        /// Its version here.
        version: String,
    },
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::Engine { host, here } => write!(
                f,
                "engine: the host runs Hexforge {host}, this is Hexforge {here} (other version)"
            ),
            Difference::Missing { id, version } => write!(
                f,
                "mod `{id}`: the host plays {version}, it is not loaded here (missing)"
            ),
            Difference::Version { id, host, here } => write!(
                f,
                "mod `{id}`: the host plays {} #{:016x}, here {} #{:016x} (other version)",
                host.0, host.1, here.0, here.1
            ),
            Difference::Content {
                id,
                version,
                host,
                here,
                files,
            } => {
                write!(
                    f,
                    "mod `{id}` {version}: the host's content hash is {host:016x}, here {here:016x} (other content hash)"
                )?;
                if !files.is_empty() {
                    write!(f, "; in play, {}", files.join(", "))?;
                }
                Ok(())
            }
            Difference::Extra { id, version } => write!(
                f,
                "mod `{id}` {version} is loaded here, not at the host (extra)"
            ),
        }
    }
}

/// Every difference between the host's `header` and this side: the engine version, then each
/// mod in the header's order (missing, other version, other content hash), then the mods loaded
/// here that the host does not play with.
pub fn differences(header: &Header, mods: &[ModInfo]) -> Vec<Difference> {
    let mut out = Vec::new();
    if header.engine != ENGINE_VERSION {
        out.push(Difference::Engine {
            host: header.engine.clone(),
            here: ENGINE_VERSION.to_string(),
        });
    }
    for (id, version, hash) in &header.mods {
        match mods.iter().find(|m| m.id == *id) {
            None => out.push(Difference::Missing {
                id: id.clone(),
                version: version.clone(),
            }),
            Some(m) => {
                let (v, h) = (m.manifest.version.to_string(), mod_hash(m));
                if v != *version {
                    out.push(Difference::Version {
                        id: id.clone(),
                        host: (version.clone(), *hash),
                        here: (v, h),
                    });
                } else if h != *hash {
                    out.push(Difference::Content {
                        id: id.clone(),
                        version: v,
                        host: *hash,
                        here: h,
                        files: hexforge_replay::file_differences(m, &header.files),
                    });
                }
            }
        }
    }
    for m in mods {
        if !header.mods.iter().any(|(id, _, _)| *id == m.id) {
            out.push(Difference::Extra {
                id: m.id.clone(),
                version: m.manifest.version.to_string(),
            });
        }
    }
    out
}

/// The differences as one report, one per line after a first line saying what to do.
pub fn refusal(differences: &[Difference]) -> String {
    let mut text = String::from(
        "this side's content differs from the host's, so the match would not play the same here (load the host's mods with --mods DIR, in the same versions, or fetch them with `join --fetch-mods`):",
    );
    for d in differences {
        text.push_str("\n  ");
        text.push_str(&d.to_string());
    }
    text
}

/// The lines of `header` as a replay file starts with them (`hexforge-replay 2`, `engine ...`,
/// `rules ...`, ..., `seed ...`).
pub fn header_lines(header: &Header) -> Vec<String> {
    let mut text = Vec::new();
    // Writing to memory cannot fail.
    let _ = Recorder::new(&mut text, header);
    String::from_utf8_lossy(&text)
        .lines()
        .map(str::to_string)
        .collect()
}

/// The header the host sent, line by line, read as a replay's header is.
pub fn read_header(lines: &[String], catalog: &Catalog) -> Result<Header, ReplayError> {
    let mut text = lines.join("\n");
    text.push('\n');
    parse(&text, catalog).map(|r| r.header)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn loaded() -> hexforge_content::LoadedMods {
        hexforge_content::load_mods(&[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods")])
    }

    #[test]
    fn a_header_travels_as_its_lines_and_reads_back() {
        let loaded = loaded();
        let mut h = hexforge_replay::header(
            ("v3", &["tie_breaker=draw".to_string()], "standard"),
            &loaded.mods,
            vec!["moloch".into(), "borgo".into()],
            11,
            5,
        );
        h.teams = vec![0, 1];
        let lines = header_lines(&h);
        assert_eq!(lines[0], "hexforge-replay 2");
        assert!(lines.contains(&"seat borgo".to_string()), "{lines:?}");
        let back = read_header(&lines, &loaded.catalog).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(back, h);
        assert!(differences(&back, &loaded.mods).is_empty());
    }

    #[test]
    fn each_mod_that_differs_is_named_with_how() {
        let loaded = loaded();
        let mut h = hexforge_replay::header(
            ("v3", &[], "standard"),
            &loaded.mods,
            vec!["moloch".into(), "borgo".into()],
            1,
            1,
        );
        assert!(h.mods.len() >= 3, "{:?}", h.mods);
        h.mods[0].2 ^= 1;
        h.mods[1].1 = "9.9.9".into();
        let extra = h.mods.remove(2);
        h.mods.push(("ghost".into(), "1.0.0".into(), 3));
        h.engine = "0.0.1".into();
        let d = differences(&h, &loaded.mods);
        let text: Vec<String> = d.iter().map(ToString::to_string).collect();
        assert_eq!(d.len(), 5, "{text:#?}");
        assert!(text[0].starts_with("engine: the host runs Hexforge 0.0.1"));
        assert!(
            text[1].starts_with(&format!("mod `{}` ", h.mods[0].0))
                && text[1].ends_with("(other content hash)"),
            "{}",
            text[1]
        );
        assert!(
            text[2].contains("the host plays 9.9.9") && text[2].ends_with("(other version)"),
            "{}",
            text[2]
        );
        assert_eq!(
            text[3],
            "mod `ghost`: the host plays 1.0.0, it is not loaded here (missing)"
        );
        assert!(
            text[4].starts_with(&format!("mod `{}` ", extra.0)) && text[4].ends_with("(extra)"),
            "{}",
            text[4]
        );
        assert!(refusal(&d).lines().count() == 6);
    }
}

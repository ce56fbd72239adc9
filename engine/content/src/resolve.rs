//! Which mods load, and in which order: the Hexforge version each supports, required, optional
//! and incompatible dependencies with their version requirements, and cycles. The order is
//! deterministic: dependencies first, then by id. A mod that cannot load is skipped with the
//! reason; the others load.

use crate::diagnostic::Diagnostic;
use crate::manifest::{DepKind, Manifest};
use semver::Version;
use std::collections::{BTreeMap, BTreeSet};

/// The outcome of resolving a set of mods.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Resolution {
    /// Indices of the mods that load, in load order.
    pub order: Vec<usize>,
    /// Indices of the mods that do not, with why (located at the manifest line that says so).
    pub skipped: Vec<(usize, Diagnostic)>,
    /// Indices of the mods written for an earlier release that load on this engine with a
    /// warning, with that release ([`crate::api_changes::earlier_release`]), in index order.
    pub earlier: Vec<(usize, Version)>,
}

/// Resolves the mods `mods` (ids unique) for the engine version `engine`; `broken` are mods
/// already known not to load (their files have errors), with why.
pub fn resolve(
    mods: &[Manifest],
    engine: &Version,
    broken: Vec<(usize, Diagnostic)>,
) -> Resolution {
    let by_id: BTreeMap<&str, usize> = mods
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id.as_str(), i))
        .collect();
    let mut skipped: BTreeMap<usize, Diagnostic> = broken.into_iter().collect();
    let at = |d: &Diagnostic, message: String| Diagnostic {
        message,
        ..d.clone()
    };
    let mut earlier = Vec::new();
    for (i, m) in mods.iter().enumerate() {
        if let Some(release) = crate::api_changes::earlier_release(&m.hexforge, engine) {
            earlier.push((i, release));
        } else if !m.hexforge.matches(engine) {
            skipped.insert(
                i,
                at(
                    m.hexforge_at.as_ref().unwrap_or(&m.at),
                    format!(
                        "mod `{}` needs Hexforge {}, and this is {engine}: use a version of the mod made for this one",
                        m.id, m.hexforge
                    ),
                ),
            );
        }
    }
    // A mod whose dependency is skipped is skipped too: repeat until nothing changes.
    loop {
        let mut changed = false;
        for (i, m) in mods.iter().enumerate() {
            if skipped.contains_key(&i) {
                continue;
            }
            for d in &m.dependencies {
                let found = by_id.get(d.id.as_str()).copied();
                let version = found.map(|j| &mods[j].version);
                let reason = match (d.kind, found, version) {
                    (DepKind::Required, None, _) => Some(format!(
                        "mod `{}` needs mod `{}` ({}), which is not installed{}: put it in a mods folder",
                        m.id,
                        d.id,
                        d.req,
                        hexforge_core::names::did_you_mean(
                            &d.id,
                            mods.iter().map(|m| m.id.as_str())
                        )
                    )),
                    (DepKind::Required, Some(j), _) if skipped.contains_key(&j) => Some(format!(
                        "mod `{}` needs mod `{}`, which was skipped (see its problem)",
                        m.id, d.id
                    )),
                    (DepKind::Required | DepKind::Optional, Some(_), Some(v))
                        if !d.req.matches(v) =>
                    {
                        Some(format!(
                            "mod `{}` needs `{}` {}, but version {v} is installed: install a matching version",
                            m.id, d.id, d.req
                        ))
                    }
                    (DepKind::Incompatible, Some(j), Some(v))
                        if !skipped.contains_key(&j) && d.req.matches(v) =>
                    {
                        Some(format!(
                            "mod `{}` cannot be loaded with `{}` {v} (it is incompatible with {}): remove one of the two",
                            m.id, d.id, d.req
                        ))
                    }
                    _ => None,
                };
                if let Some(reason) = reason {
                    skipped.insert(i, at(&d.at, reason));
                    changed = true;
                    break;
                }
            }
        }
        if !changed {
            break;
        }
    }
    // Load order: a mod after the mods it depends on (required, or optional and present), ties
    // by id. What cannot be ordered is in a dependency cycle, or waits on one.
    let deps_of = |i: usize| -> Vec<usize> {
        mods[i]
            .dependencies
            .iter()
            .filter(|d| d.kind != DepKind::Incompatible)
            .filter_map(|d| by_id.get(d.id.as_str()).copied())
            .filter(|j| !skipped.contains_key(j))
            .collect()
    };
    let live: Vec<usize> = (0..mods.len())
        .filter(|i| !skipped.contains_key(i))
        .collect();
    let mut waiting: BTreeMap<usize, usize> = live.iter().map(|&i| (i, deps_of(i).len())).collect();
    let mut ready: BTreeSet<(&str, usize)> = waiting
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(&i, _)| (mods[i].id.as_str(), i))
        .collect();
    let mut order = Vec::new();
    while let Some(first) = ready.iter().next().copied() {
        ready.remove(&first);
        let (_, i) = first;
        waiting.remove(&i);
        order.push(i);
        for &j in &live {
            if let Some(n) = waiting.get_mut(&j)
                && deps_of(j).contains(&i)
            {
                *n -= deps_of(j).iter().filter(|&&x| x == i).count();
                if *n == 0 {
                    ready.insert((mods[j].id.as_str(), j));
                }
            }
        }
    }
    let stuck: Vec<usize> = waiting.keys().copied().collect();
    let mut cycles = Vec::new();
    for &i in &stuck {
        // Follow the first stuck dependency until a mod repeats: that is the cycle.
        let mut path = vec![i];
        let mut next = i;
        let cycle = loop {
            let Some(&j) = deps_of(next).iter().find(|j| waiting.contains_key(j)) else {
                break None;
            };
            if let Some(k) = path.iter().position(|&p| p == j) {
                break Some(
                    path[k..]
                        .iter()
                        .chain([&j])
                        .map(|&p| mods[p].id.as_str())
                        .collect::<Vec<_>>(),
                );
            }
            path.push(j);
            next = j;
        };
        let first_dep = mods[i].dependencies.iter().find(|d| {
            by_id
                .get(d.id.as_str())
                .is_some_and(|j| waiting.contains_key(j))
        });
        let message = match cycle {
            Some(c) if c.first() == Some(&mods[i].id.as_str()) => format!(
                "mod `{}` is in a dependency cycle ({}): remove one of these dependencies",
                mods[i].id,
                c.join(" -> ")
            ),
            Some(c) => format!(
                "mod `{}` needs a mod in a dependency cycle ({}): remove one of those dependencies",
                mods[i].id,
                c.join(" -> ")
            ),
            None => format!("mod `{}` waits on a dependency cycle", mods[i].id),
        };
        cycles.push((i, at(first_dep.map_or(&mods[i].at, |d| &d.at), message)));
    }
    skipped.extend(cycles);
    earlier.retain(|(i, _)| !skipped.contains_key(i));
    Resolution {
        order,
        skipped: skipped.into_iter().collect(),
        earlier,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::SourceText;
    use crate::manifest::parse_manifest;

    fn mods(list: &[&str]) -> Vec<Manifest> {
        list.iter()
            .enumerate()
            .map(|(i, text)| {
                parse_manifest(&SourceText::new(format!("m{i}/mod.toml"), *text))
                    .unwrap_or_else(|e| panic!("{e}"))
            })
            .collect()
    }

    fn ids(ms: &[Manifest], r: &Resolution) -> Vec<String> {
        r.order.iter().map(|&i| ms[i].id.clone()).collect()
    }

    fn manifest(id: &str, version: &str, extra: &str) -> String {
        format!("id = \"{id}\"\nname = \"{id}\"\nversion = \"{version}\"\n{extra}")
    }

    #[test]
    fn dependencies_load_first_then_by_id() {
        let ms = mods(&[
            &manifest("zeta", "1.0.0", "[dependencies]\nbase = \"^1\"\n"),
            &manifest("alpha", "1.0.0", "[dependencies]\nzeta = \"1\"\n"),
            &manifest("base", "1.2.0", ""),
            &manifest("beta", "1.0.0", "[optional_dependencies]\nalpha = \"*\"\n"),
        ]);
        let r = resolve(&ms, &Version::new(0, 1, 0), Vec::new());
        assert_eq!(ids(&ms, &r), ["base", "zeta", "alpha", "beta"]);
        assert!(r.skipped.is_empty());
    }

    #[test]
    fn broken_dependencies_skip_only_the_mods_they_concern() {
        let ms = mods(&[
            &manifest("base", "1.0.0", ""),
            &manifest("needs_missing", "1.0.0", "[dependencies]\nghost = \"1\"\n"),
            &manifest("too_new", "1.0.0", "[dependencies]\nbase = \">=2\"\n"),
            &manifest("on_top", "1.0.0", "[dependencies]\nneeds_missing = \"1\"\n"),
            &manifest("rival", "1.0.0", "[incompatible]\nbase = \"*\"\n"),
            &manifest("future", "1.0.0", "hexforge = \">=9\"\n"),
            &manifest("loop_a", "1.0.0", "[dependencies]\nloop_b = \"1\"\n"),
            &manifest("loop_b", "1.0.0", "[dependencies]\nloop_a = \"1\"\n"),
        ]);
        let r = resolve(&ms, &Version::new(0, 1, 0), Vec::new());
        assert_eq!(ids(&ms, &r), ["base"]);
        let why: BTreeMap<&str, &str> = r
            .skipped
            .iter()
            .map(|(i, d)| (ms[*i].id.as_str(), d.message.as_str()))
            .collect();
        assert!(why["needs_missing"].contains("`ghost` (^1), which is not installed"));
        assert!(why["too_new"].contains("needs `base` >=2, but version 1.0.0 is installed"));
        assert!(why["on_top"].contains("`needs_missing`, which was skipped"));
        assert!(why["rival"].contains("cannot be loaded with `base` 1.0.0"));
        assert!(why["future"].contains("needs Hexforge >=9, and this is 0.1.0"));
        assert!(
            why["loop_a"].contains("dependency cycle (loop_a -> loop_b -> loop_a)"),
            "{}",
            why["loop_a"]
        );
        assert!(why["loop_b"].contains("(loop_b -> loop_a -> loop_b)"));
        // Problems point at the manifest line that causes them.
        let (_, d) = r
            .skipped
            .iter()
            .find(|(i, _)| ms[*i].id == "too_new")
            .expect("skipped");
        assert_eq!((d.line, d.column), (5, 8));
    }

    #[test]
    fn a_mod_written_for_an_earlier_release_loads_and_one_no_release_meets_is_skipped() {
        let ms = mods(&[
            &manifest("old", "1.0.0", "hexforge = \"^0.1\"\n"),
            &manifest("ancient", "1.0.0", "hexforge = \"<0.1\"\n"),
            &manifest("on_old", "1.0.0", "[dependencies]\nold = \"1\"\n"),
        ]);
        let r = resolve(&ms, &Version::new(0, 2, 0), Vec::new());
        assert_eq!(ids(&ms, &r), ["old", "on_old"]);
        assert_eq!(r.earlier, [(0, Version::new(0, 1, 0))]);
        let (i, d) = &r.skipped[0];
        assert_eq!(ms[*i].id, "ancient");
        assert!(
            d.message.contains(
                "needs Hexforge <0.1, and this is 0.2.0: use a version of the mod made for this one"
            ),
            "{}",
            d.message
        );
    }
}

//! Rule presets from mods (`rules/*.toml`): a built-in edition (classic, v3, v2025) with option
//! overrides, each checked against the engine's option keys, so `--rules monolith` can name a
//! variant a mod defines.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml};
use crate::value::param;
use hexforge_core::rules::{Preset, Rules};
use hexforge_core::tile::{DeclaredOption, ParamValue};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

/// A rule preset file (`rules/*.toml`) as parsed, before its options are checked.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PresetFileDef {
    /// The `[preset]` table: id, names and base edition.
    pub preset: PresetHeaderDef,
    /// The `[options]` table: rule option keys (`hexforge_core::Rules::KEYS`) and their values, with positions.
    #[serde(default)]
    pub options: BTreeMap<String, Spanned<toml::Value>>,
}

/// The raw `[preset]` table of a rule preset file.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PresetHeaderDef {
    /// The id `--rules` names the preset by.
    pub id: Spanned<String>,
    /// The preset's name as preset lists show it; `--rules` takes the id.
    pub name: String,
    /// A line for preset lists; empty when omitted.
    #[serde(default)]
    pub description: String,
    /// The edition it starts from.
    pub base: Spanned<String>,
}

/// A rule preset that passed validation, for `--rules` and scenarios to name by id.
#[derive(Clone, Debug, PartialEq)]
pub struct RulePreset {
    /// The id `--rules` names the preset by.
    pub id: String,
    /// The preset's name as preset lists show it; `--rules` takes the id.
    pub name: String,
    /// A line for preset lists; may be empty.
    pub description: String,
    /// The complete rules: the base edition with the preset's options set.
    pub rules: Rules,
    /// Where the preset's id is (the message is empty).
    pub at: Diagnostic,
}

/// Reads and validates one preset file; every problem is reported at once.
pub fn load_preset(path: &Path) -> Result<RulePreset, Diagnostics> {
    parse_preset(&SourceText::read(path, "rule preset")?)
}

/// Parses then validates a preset file's text.
pub fn parse_preset(src: &SourceText) -> Result<RulePreset, Diagnostics> {
    let def: PresetFileDef = parse_toml(src)?;
    let mut errors = Vec::new();
    let id = def.preset.id.get_ref();
    let builtin = Preset::parse(id).is_some();
    if !crate::scaffold::valid_id(id) || builtin {
        errors.push(src.error(
            def.preset.id.span(),
            format!(
                "preset id `{id}`: use a snake_case name that is not a built-in edition ({})",
                Preset::VALUES.join(", ")
            ),
        ));
    }
    let base = match Preset::parse(def.preset.base.get_ref()) {
        Some(p) => p,
        None => {
            errors.push(src.error(
                def.preset.base.span(),
                format!(
                    "unknown base `{}`{}: a preset starts from one of {}",
                    def.preset.base.get_ref(),
                    hexforge_core::names::did_you_mean(
                        def.preset.base.get_ref(),
                        Preset::VALUES.iter().copied()
                    ),
                    Preset::VALUES.join(", ")
                ),
            ));
            Preset::V3
        }
    };
    let mut rules = Rules::preset(base);
    for (key, value) in &def.options {
        let set = param(value.get_ref())
            .map_err(|e| e.to_string())
            .and_then(|v| rules.set(key, &v).map_err(|e| e.to_string()));
        if let Err(message) = set {
            errors.push(src.error(value.span(), message));
        }
    }
    if !errors.is_empty() {
        errors.sort_by_key(|d| (d.line, d.column));
        return Err(Diagnostics(errors));
    }
    Ok(RulePreset {
        id: id.clone(),
        name: def.preset.name,
        description: def.preset.description,
        rules,
        at: src.error(def.preset.id.span(), ""),
    })
}

/// A table's rules that cannot be set up.
#[derive(Debug, thiserror::Error)]
pub enum RulesError {
    /// The preset named is neither a built-in edition nor a loaded mod's preset.
    #[error(
        "unknown rules preset `{preset}`{}: use one of {}",
        hexforge_core::names::did_you_mean(preset, known.iter().map(String::as_str)),
        known.join(", ")
    )]
    UnknownPreset {
        /// The preset as named.
        preset: String,
        /// Every preset that could be named: the editions, then the mods' presets.
        known: Vec<String>,
    },
    /// An option override is not written `KEY=VALUE`.
    #[error("option `{0}` should be KEY=VALUE, e.g. tie_breaker=draw")]
    NotKeyValue(String),
    /// An option override names an unknown key or a value the key does not accept.
    #[error(transparent)]
    Option(#[from] hexforge_core::rules::OptionError),
}

/// The rule presets the loaded `mods` define, the first of an id in load order.
pub fn mod_presets(mods: &[crate::ModInfo]) -> Vec<RulePreset> {
    let mut presets: Vec<RulePreset> = Vec::new();
    for p in mods.iter().flat_map(|m| &m.presets) {
        if !presets.iter().any(|q| q.id == p.id) {
            presets.push(p.clone());
        }
    }
    presets
}

/// The rules of a table: the built-in edition or mod preset `preset` (one of `presets`), the
/// options mods declare (`declared`, the catalog's [`hexforge_core::Catalog::options`]) at their
/// value for that preset, then each of `options` (`KEY=VALUE`, an engine key or a declared one)
/// set on top.
pub fn table_rules(
    preset: &str,
    options: &[String],
    presets: &[RulePreset],
    declared: &BTreeMap<String, DeclaredOption>,
) -> Result<Rules, RulesError> {
    let mut rules = match Preset::parse(preset) {
        Some(p) => Rules::preset(p),
        None => match presets.iter().find(|p| p.id == preset) {
            Some(p) => p.rules.clone(),
            None => {
                let mut known: Vec<String> = Preset::VALUES.iter().map(|s| s.to_string()).collect();
                known.extend(presets.iter().map(|p| p.id.clone()));
                return Err(RulesError::UnknownPreset {
                    preset: preset.to_string(),
                    known,
                });
            }
        },
    };
    rules.start_options(declared, preset);
    for o in options {
        let (key, value) = key_value(o)?;
        rules.set_any(declared, key, &value)?;
    }
    Ok(rules)
}

/// An option override `KEY=VALUE` split, its value read as a boolean, a whole number or text.
fn key_value(o: &str) -> Result<(&str, ParamValue), RulesError> {
    let Some((key, value)) = o.split_once('=') else {
        return Err(RulesError::NotKeyValue(o.to_string()));
    };
    let value = match value.trim() {
        "true" => ParamValue::Bool(true),
        "false" => ParamValue::Bool(false),
        v => v
            .parse::<i64>()
            .map(ParamValue::Int)
            .unwrap_or_else(|_| ParamValue::Str(v.trim_matches('"').to_string())),
    };
    Ok((key.trim(), value))
}

/// Where the value of a rule option at a table comes from ([`rule_lines`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ValueSource {
    /// Its default: the 3.0 edition's value for an engine key, the declared default otherwise.
    Default,
    /// The preset named (an edition or a mod's preset) gives it another value.
    Preset(String),
    /// An `--option KEY=VALUE` set it.
    Override,
}

impl std::fmt::Display for ValueSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueSource::Default => f.write_str("default"),
            ValueSource::Preset(p) => write!(f, "preset {p}"),
            ValueSource::Override => f.write_str("--option"),
        }
    }
}

/// One rule option of a table with its value, where the value comes from and who owns the key.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleLine {
    /// The option's key.
    pub key: String,
    /// Its value at this table.
    pub value: ParamValue,
    /// Where the value comes from.
    pub source: ValueSource,
    /// The mod that declares the key; `None` for the engine's own keys.
    pub declared_by: Option<String>,
}

impl std::fmt::Display for RuleLine {
    /// `KEY = VALUE  # SOURCE, OWNER`, e.g. `tie_breaker = "draw"  # --option, engine`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} = {}  # {}, ", self.key, self.value, self.source)?;
        match &self.declared_by {
            None => f.write_str("engine"),
            Some(m) => write!(f, "mod {m}"),
        }
    }
}

/// Every rule option of a table ([`table_rules`] with the same arguments): the engine's keys in
/// [`Rules::KEYS`] order, then the declared ones by key, each with its value and its source.
pub fn rule_lines(
    preset: &str,
    options: &[String],
    presets: &[RulePreset],
    declared: &BTreeMap<String, DeclaredOption>,
) -> Result<Vec<RuleLine>, RulesError> {
    let rules = table_rules(preset, options, presets, declared)?;
    let mut set: Vec<&str> = Vec::new();
    for o in options {
        set.push(Rules::canonical_key(key_value(o)?.0));
    }
    let default = Rules::default();
    let edition = Rules::preset(rules.preset);
    let from_mod = presets.iter().find(|p| p.id == preset);
    let mut lines = Vec::new();
    for key in Rules::KEYS {
        let value = rules.get(key).unwrap_or(ParamValue::Bool(false));
        let source = if set.contains(key) {
            ValueSource::Override
        } else if from_mod.is_some_and(|p| p.rules.get(key) != edition.get(key)) {
            ValueSource::Preset(preset.to_string())
        } else if edition.get(key) != default.get(key) {
            ValueSource::Preset(rules.preset.to_string())
        } else {
            ValueSource::Default
        };
        lines.push(RuleLine {
            key: key.to_string(),
            value,
            source,
            declared_by: None,
        });
    }
    for (key, d) in declared {
        let source = if set.contains(&key.as_str()) {
            ValueSource::Override
        } else if d.presets.contains_key(preset) {
            ValueSource::Preset(preset.to_string())
        } else {
            ValueSource::Default
        };
        lines.push(RuleLine {
            key: key.clone(),
            value: rules.option(declared, key).unwrap_or(d.default.clone()),
            source,
            declared_by: Some(d.declared_by.clone()),
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<RulePreset, Diagnostics> {
        parse_preset(&SourceText::new("rules/p.toml", text))
    }

    #[test]
    fn a_preset_is_its_base_edition_with_its_options() {
        let p = parse(
            "[preset]\nid = \"quick\"\nname = \"Quick\"\nbase = \"v2025\"\n\n[options]\ntie_breaker = \"draw\"\nhq_hp = 10\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut expected = Rules::preset(Preset::V2025);
        expected.hq_hp = 10;
        expected.tie_breaker = hexforge_core::rules::TieBreaker::Draw;
        assert_eq!(p.rules, expected);
    }

    #[test]
    fn every_preset_problem_is_located() {
        let err = parse(
            "[preset]\nid = \"v3\"\nname = \"X\"\nbase = \"v4\"\n\n[options]\nno_such = 1\nhq_hp = \"many\"\n",
        )
        .expect_err("invalid");
        let text = err.to_string();
        assert!(text.contains("rules/p.toml:2:6: preset id `v3`"), "{text}");
        assert!(
            text.contains("rules/p.toml:4:8: unknown base `v4`"),
            "{text}"
        );
        assert!(
            text.contains("rules/p.toml:7:11: unknown rule option `no_such`"),
            "{text}"
        );
        assert!(
            text.contains("rules/p.toml:8:9: rule option `hq_hp`"),
            "{text}"
        );
    }
    #[test]
    fn a_table_takes_a_preset_then_its_options() {
        let quick = parse("[preset]\nid = \"quick\"\nname = \"Quick\"\nbase = \"v2025\"\n\n[options]\nhq_hp = 10\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let rules = table_rules(
            "quick",
            &["tie_breaker=draw".into()],
            std::slice::from_ref(&quick),
            &BTreeMap::new(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rules.hq_hp, 10);
        assert_eq!(rules.tie_breaker, hexforge_core::rules::TieBreaker::Draw);
        assert_eq!(
            table_rules("v3", &[], &[], &BTreeMap::new()).ok(),
            Some(Rules::preset(Preset::V3))
        );
        let e = table_rules("nope", &[], &[quick], &BTreeMap::new()).expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "unknown rules preset `nope`: use one of classic, v3, v2025, quick"
        );
        let e = table_rules("v3", &["hq_hp".into()], &[], &BTreeMap::new()).expect_err("no value");
        assert_eq!(
            e.to_string(),
            "option `hq_hp` should be KEY=VALUE, e.g. tie_breaker=draw"
        );
        assert!(table_rules("v3", &["hq_hp=many".into()], &[], &BTreeMap::new()).is_err());
    }
}

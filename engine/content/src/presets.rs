//! Rule presets from mods (`rules/*.toml`): a built-in edition (classic, v3, v2025) with option
//! overrides, each checked against the engine's option keys, so `--rules monolith` can name a
//! variant a mod defines.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml};
use crate::value::param;
use hexforge_core::rules::{KeyKind, Preset, Rules};
use hexforge_core::tile::{DeclaredOption, OptionKind, ParamValue};
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
            .and_then(|v| {
                rules.set(key, &v).map_err(|e| match e {
                    // A mod's own option is not set here but in its declaration.
                    hexforge_core::rules::OptionError::UnknownKey { .. } => format!(
                        "{e}. A preset's `[options]` sets engine keys only: if `{key}` is an option a mod declares, give it its value for this preset in that mod's options.toml, `presets = {{ {id} = ... }}` in the option's entry (docs/RULESETS.md, \"Presets\")"
                    ),
                    other => other.to_string(),
                })
            });
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

/// The rules of a table: the built-in edition or mod preset `preset` (one of `presets`), the
/// options mods declare (`declared`, the catalog's [`hexforge_core::Catalog::options`]) at their
/// value for that preset, then each of `options` (`KEY=VALUE`, an engine key or a declared one)
/// set on top, then the engine keys the declared options' values imply (`implications`, the
/// catalog's [`hexforge_core::Catalog::implications`]) but those `options` set
/// ([`Rules::imply`]).
pub fn table_rules(
    preset: &str,
    options: &[String],
    presets: &[RulePreset],
    declared: &BTreeMap<String, DeclaredOption>,
    implications: &[hexforge_core::tile::Implication],
) -> Result<Rules, RulesError> {
    table_rules_implied(preset, options, presets, declared, implications).map(|(r, _)| r)
}

/// [`table_rules`], with each engine key an implication set and the index of that implication.
fn table_rules_implied(
    preset: &str,
    options: &[String],
    presets: &[RulePreset],
    declared: &BTreeMap<String, DeclaredOption>,
    implications: &[hexforge_core::tile::Implication],
) -> Result<(Rules, Vec<(String, usize)>), RulesError> {
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
    let mut explicit = Vec::with_capacity(options.len());
    for o in options {
        let (key, value) = key_value(o)?;
        rules.set_any(declared, key, &value)?;
        explicit.push(Rules::canonical_key(key));
    }
    let implied = rules.imply(declared, implications, &explicit)?;
    Ok((rules, implied))
}

/// An option override `KEY=VALUE` split, its value read as a boolean, a whole number, a list of
/// them in brackets (`[20, 13]`, `["borgo"]`) or text.
pub fn key_value(o: &str) -> Result<(&str, ParamValue), RulesError> {
    let Some((key, value)) = o.split_once('=') else {
        return Err(RulesError::NotKeyValue(o.to_string()));
    };
    let scalar = |v: &str| match v {
        "true" => ParamValue::Bool(true),
        "false" => ParamValue::Bool(false),
        v => v
            .parse::<i64>()
            .map(ParamValue::Int)
            .unwrap_or_else(|_| ParamValue::Str(v.trim_matches('"').to_string())),
    };
    let value = value.trim();
    let value = match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        Some(inner) if inner.trim().is_empty() => ParamValue::List(Vec::new()),
        Some(inner) => ParamValue::List(inner.split(',').map(|v| scalar(v.trim())).collect()),
        None => scalar(value),
    };
    Ok((key.trim(), value))
}

/// The override `KEY=VALUE` that [`key_value`] reads back as `value` (text quoted, lists in
/// brackets), as `--option`, the editor and replays' `option` lines write it.
pub fn option_text(key: &str, value: &ParamValue) -> String {
    format!("{key}={value}")
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
    /// An `[[implies]]` of a mod's `options.toml` set it (docs/RULESETS.md).
    Implied {
        /// The declared option keys of its `when`.
        by: Vec<String>,
        /// The id of the mod whose `options.toml` holds it.
        declared_by: String,
    },
}

impl std::fmt::Display for ValueSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueSource::Default => f.write_str("default"),
            ValueSource::Preset(p) => write!(f, "preset {p}"),
            ValueSource::Override => f.write_str("--option"),
            ValueSource::Implied { by, declared_by } => {
                write!(f, "implied by {} (mod {declared_by})", by.join(", "))
            }
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

/// What values a rule option takes ([`RuleInfo::kind`]): an engine key's
/// ([`hexforge_core::rules::KeyKind`]) or a declared option's ([`OptionKind`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleKind {
    /// On or off.
    Bool,
    /// A whole number, within `min` and `max` when given.
    Integer {
        /// The smallest value accepted, if any.
        min: Option<i64>,
        /// The largest value accepted, if any.
        max: Option<i64>,
    },
    /// One of the names listed.
    Enum(Vec<String>),
    /// Any text.
    String,
    /// A list in brackets: names (`["borgo"]`) or two whole numbers (`[20, 13]`).
    List,
}

impl From<KeyKind> for RuleKind {
    fn from(k: KeyKind) -> Self {
        match k {
            KeyKind::Bool => RuleKind::Bool,
            KeyKind::Number { min, max } => RuleKind::Integer {
                min: Some(i64::from(min)),
                max: Some(i64::from(max)),
            },
            KeyKind::Choice(values) => {
                RuleKind::Enum(values.iter().map(|v| v.to_string()).collect())
            }
            KeyKind::Names | KeyKind::Pair => RuleKind::List,
        }
    }
}

impl From<&OptionKind> for RuleKind {
    fn from(k: &OptionKind) -> Self {
        match k {
            OptionKind::Bool => RuleKind::Bool,
            OptionKind::Integer { min, max } => RuleKind::Integer {
                min: *min,
                max: *max,
            },
            OptionKind::Enum(values) => RuleKind::Enum(values.clone()),
            OptionKind::String => RuleKind::String,
        }
    }
}

/// What a rule option is, for a shell that shows or changes it ([`rule_info`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleInfo {
    /// The values it takes.
    pub kind: RuleKind,
    /// The rule it follows (`R8.5.7`); may be empty.
    pub rule: String,
    /// One line saying what it changes.
    pub doc: String,
    /// Whether games play it: `false` for a declared option with `played = false`, which a game
    /// refuses at any value but its default.
    pub played: bool,
}

/// What the rule option `key` is: an engine key (or a former one, `Rules::ALIASES`) or one of
/// `declared` (the catalog's [`hexforge_core::Catalog::options`]); `None` for an unknown key.
pub fn rule_info(key: &str, declared: &BTreeMap<String, DeclaredOption>) -> Option<RuleInfo> {
    if let Some(i) = Rules::key_info(key) {
        return Some(RuleInfo {
            kind: i.kind.into(),
            rule: i.rule.to_string(),
            doc: i.doc.to_string(),
            played: true,
        });
    }
    declared.get(key).map(|d| RuleInfo {
        kind: (&d.kind).into(),
        rule: d.rule.clone(),
        doc: d.doc.clone(),
        played: d.played,
    })
}

/// Every rule option of a table ([`table_rules`] with the same arguments): the engine's keys in
/// [`Rules::KEYS`] order, then the declared ones by key, each with its value and its source.
pub fn rule_lines(
    preset: &str,
    options: &[String],
    presets: &[RulePreset],
    declared: &BTreeMap<String, DeclaredOption>,
    implications: &[hexforge_core::tile::Implication],
) -> Result<Vec<RuleLine>, RulesError> {
    let (rules, implied) = table_rules_implied(preset, options, presets, declared, implications)?;
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
        let by = implied.iter().find(|(k, _)| k == key);
        let source = if set.contains(key) {
            ValueSource::Override
        } else if let Some((_, n)) = by {
            let i = &implications[*n];
            ValueSource::Implied {
                by: i.when.iter().map(|(k, _)| k.clone()).collect(),
                declared_by: i.declared_by.clone(),
            }
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
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(rules.hq_hp, 10);
        assert_eq!(rules.tie_breaker, hexforge_core::rules::TieBreaker::Draw);
        assert_eq!(
            table_rules("v3", &[], &[], &BTreeMap::new(), &[]).ok(),
            Some(Rules::preset(Preset::V3))
        );
        let e = table_rules("nope", &[], &[quick], &BTreeMap::new(), &[]).expect_err("unknown");
        assert_eq!(
            e.to_string(),
            "unknown rules preset `nope`: use one of classic, v3, v2025, quick"
        );
        let e =
            table_rules("v3", &["hq_hp".into()], &[], &BTreeMap::new(), &[]).expect_err("no value");
        assert_eq!(
            e.to_string(),
            "option `hq_hp` should be KEY=VALUE, e.g. tie_breaker=draw"
        );
        assert!(table_rules("v3", &["hq_hp=many".into()], &[], &BTreeMap::new(), &[]).is_err());
        let listed = table_rules(
            "v3",
            &[
                "one_vs_team_hq_hp=[18, 12]".into(),
                "bad_draw_exempt_armies=[\"borgo\", \"moloch\"]".into(),
            ],
            &[],
            &BTreeMap::new(),
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(listed.one_vs_team_hq_hp, [18, 12]);
        assert_eq!(listed.bad_draw_exempt_armies, ["borgo", "moloch"]);
        for key in ["one_vs_team_hq_hp", "bad_draw_exempt_armies", "tie_breaker"] {
            let value = listed.get(key).expect("a key");
            let text = option_text(key, &value);
            assert_eq!(key_value(&text).ok(), Some((key, value)), "{text}");
        }
    }
}

#[cfg(test)]
mod line_tests {
    use super::*;

    #[test]
    fn a_former_key_is_an_override_of_the_key_it_became_with_its_rule_and_doc() {
        let lines = rule_lines(
            "v3",
            &["moloch_team_exception=off".into()],
            &[],
            &BTreeMap::new(),
            &[],
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let line = lines
            .iter()
            .find(|l| l.key == "ally_attack_rule")
            .expect("the new key is listed");
        assert_eq!(line.source, ValueSource::Override);
        assert_eq!(line.value, ParamValue::Str("off".into()));
        let info = rule_info("moloch_team_exception", &BTreeMap::new()).expect("a key");
        assert_eq!(info.rule, "R8.5.7");
        assert_eq!(
            info.kind,
            RuleKind::Enum(vec!["mandatory".into(), "optional".into(), "off".into()])
        );
        assert!(info.played && !info.doc.is_empty());
        assert_eq!(rule_info("no_such_key", &BTreeMap::new()), None);
        assert!(!lines.iter().any(|l| l.key == "moloch_team_exception"));
        assert_eq!(lines.len(), Rules::KEYS.len());
    }
}

//! Rule presets from mods (`rules/*.toml`): a built-in edition (classic, v3, v2025) with option
//! overrides, each checked against the engine's option keys, so `--rules monolith` can name a
//! variant a mod defines.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml};
use crate::value::param;
use hexforge_core::rules::{Preset, Rules};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::Spanned;

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PresetFileDef {
    pub preset: PresetHeaderDef,
    #[serde(default)]
    pub options: BTreeMap<String, Spanned<toml::Value>>,
}

#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct PresetHeaderDef {
    pub id: Spanned<String>,
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// The edition it starts from.
    pub base: Spanned<String>,
}

/// A validated rule preset.
#[derive(Clone, Debug, PartialEq)]
pub struct RulePreset {
    pub id: String,
    pub name: String,
    pub description: String,
    /// The complete rules: the base edition with the preset's options set.
    pub rules: Rules,
    /// Where the preset's id is (the message is empty).
    pub at: Diagnostic,
}

/// Reads and validates one preset file; every problem is reported at once.
pub fn load_preset(path: &Path) -> Result<RulePreset, Diagnostics> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::whole_file(path, format!("cannot read the rule preset: {e}")))?;
    parse_preset(&SourceText::new(path, text))
}

/// Parses then validates a preset file's text.
pub fn parse_preset(src: &SourceText) -> Result<RulePreset, Diagnostics> {
    let def: PresetFileDef = parse_toml(src)?;
    let mut errors = Vec::new();
    let id = def.preset.id.get_ref();
    let builtin = Preset::parse(id).is_some();
    let snake = id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !snake || builtin {
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
                    "unknown base `{}`: a preset starts from one of {}",
                    def.preset.base.get_ref(),
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
}

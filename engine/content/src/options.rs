//! Rule options a mod declares in its `options.toml` (docs/RULESETS.md): each `[[option]]` names
//! a key the engine does not have, what values it takes, its default and its value in each
//! preset, for the mod's scripts to read with `ctx:option(key)`.

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml};
use crate::value::param;
use hexforge_core::Rules;
use hexforge_core::names::did_you_mean;
use hexforge_core::rules::Preset;
use hexforge_core::tile::{DeclaredOption, OptionKind, ParamValue};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// The file of a mod's declared options, at the mod folder's root.
pub const OPTIONS_FILE: &str = "options.toml";

/// The option types `type` may name.
pub const OPTION_TYPES: &[&str] = &["bool", "integer", "enum", "string"];

/// An `options.toml` as parsed, before its options are checked.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct OptionsFileDef {
    /// The `[[option]]` tables, in file order.
    #[serde(default)]
    pub option: Vec<OptionDef>,
}

/// One raw `[[option]]` table of an `options.toml`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct OptionDef {
    /// The key `--option`, scenarios, replays and `ctx:option` name it by.
    pub key: Spanned<String>,
    /// `bool`, `integer`, `enum` or `string`.
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    /// The smallest value of an `integer` option.
    pub min: Option<Spanned<i64>>,
    /// The largest value of an `integer` option.
    pub max: Option<Spanned<i64>>,
    /// The names an `enum` option takes.
    pub values: Option<Spanned<Vec<String>>>,
    /// Its value when no preset names it.
    pub default: Spanned<toml::Value>,
    /// Its value in a preset, by preset id (a built-in edition or a preset of the mod).
    #[serde(default)]
    pub presets: BTreeMap<String, Spanned<toml::Value>>,
    /// One line saying what it changes.
    pub doc: Spanned<String>,
    /// The rule it follows (e.g. `R7.2.4`).
    #[serde(default)]
    pub rule: String,
    /// `false` for an option games do not play yet: a game that sets it otherwise than its
    /// default is refused. Default `true`.
    #[serde(default = "played_by_default")]
    pub played: bool,
}

fn played_by_default() -> bool {
    true
}

/// A declared option that passed validation, with where it is declared.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionDecl {
    /// Its key.
    pub key: String,
    /// What it accepts, its default and preset values, its mod, doc and rule.
    pub option: DeclaredOption,
    /// Where its key is written (the message is empty).
    pub at: Diagnostic,
}

/// Reads and validates a mod's `options.toml`; `mod_id` declares them and `presets` are the ids
/// of the mod's own presets, which the options may give values for besides the editions.
pub fn load_options(
    path: &Path,
    mod_id: &str,
    presets: &[&str],
) -> Result<Vec<OptionDecl>, Diagnostics> {
    parse_options(&SourceText::read(path, "options file")?, mod_id, presets)
}

/// Parses then validates an `options.toml` text; every problem is reported at once, each at its
/// `file:line:column`.
pub fn parse_options(
    src: &SourceText,
    mod_id: &str,
    presets: &[&str],
) -> Result<Vec<OptionDecl>, Diagnostics> {
    let def: OptionsFileDef = parse_toml(src)?;
    let mut errors = Vec::new();
    let mut out: Vec<OptionDecl> = Vec::new();
    for o in def.option {
        if let Some(d) = check_option(src, o, mod_id, presets, &mut errors) {
            if out.iter().any(|p| p.key == d.key) {
                errors.push(Diagnostic {
                    message: format!(
                        "option `{}` is declared twice in this file: remove or rename one",
                        d.key
                    ),
                    ..d.at
                });
            } else {
                out.push(d);
            }
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        errors.sort_by_key(|d| (d.line, d.column));
        Err(Diagnostics(errors))
    }
}

/// One option checked; its problems go to `errors` and `None` is returned when there is any.
fn check_option(
    src: &SourceText,
    o: OptionDef,
    mod_id: &str,
    presets: &[&str],
    errors: &mut Vec<Diagnostic>,
) -> Option<OptionDecl> {
    let before = errors.len();
    let mut err = |span: Range<usize>, message: String| errors.push(src.error(span, message));
    let key = o.key.get_ref().clone();
    if !crate::scaffold::valid_id(&key) {
        err(
            o.key.span(),
            format!("option key `{key}`: use a snake_case name (lowercase letters, digits, _)"),
        );
    } else if Rules::is_key(&key) {
        err(
            o.key.span(),
            format!(
                "option `{key}` is one of the engine's own rule options: set it in a preset (rules/*.toml) instead, or declare another key"
            ),
        );
    }
    let not_for = |what: &str, kind: &str| {
        format!("`{what}` is only for `type = \"{kind}\"` options: remove it")
    };
    let kind = match o.kind.get_ref().as_str() {
        "bool" => Some(OptionKind::Bool),
        "string" => Some(OptionKind::String),
        "integer" => {
            let min = o.min.as_ref().map(|m| *m.get_ref());
            let max = o.max.as_ref().map(|m| *m.get_ref());
            if let (Some(a), Some(b), Some(at)) = (min, max, &o.max)
                && a > b
            {
                err(
                    at.span(),
                    format!("max {b} is below min {a}: make max at least min"),
                );
            }
            Some(OptionKind::Integer { min, max })
        }
        "enum" => match &o.values {
            Some(v) if v.get_ref().is_empty() => {
                err(
                    v.span(),
                    "an enum option needs at least one value in `values`".into(),
                );
                None
            }
            Some(v) => {
                let names = v.get_ref();
                for (i, n) in names.iter().enumerate() {
                    if names[..i].contains(n) {
                        err(
                            v.span(),
                            format!("value `{n}` is listed twice in `values`: list it once"),
                        );
                    }
                }
                Some(OptionKind::Enum(names.clone()))
            }
            None => {
                err(
                    o.kind.span(),
                    "an enum option needs `values = [...]`, the names it takes".into(),
                );
                None
            }
        },
        other => {
            err(
                o.kind.span(),
                format!(
                    "unknown option type `{other}`{}: use one of {}",
                    did_you_mean(other, OPTION_TYPES.iter().copied()),
                    OPTION_TYPES.join(", ")
                ),
            );
            None
        }
    };
    let kind_name = o.kind.get_ref().as_str();
    if kind_name != "integer" {
        for (what, at) in [("min", &o.min), ("max", &o.max)] {
            if let Some(at) = at {
                err(at.span(), not_for(what, "integer"));
            }
        }
    }
    if kind_name != "enum"
        && let Some(v) = &o.values
    {
        err(v.span(), not_for("values", "enum"));
    }
    // A value checked against the kind: the value kept, or where and what is wrong.
    let value = |what: &str,
                 v: &Spanned<toml::Value>|
     -> Result<Option<ParamValue>, (Range<usize>, String)> {
        let Some(kind) = kind.as_ref() else {
            return Ok(None);
        };
        match param(v.get_ref()).ok().and_then(|p| kind.accept(&p)) {
            Some(p) => Ok(Some(p)),
            None => {
                let found = v.get_ref().to_string();
                let mut message = format!(
                    "{what} of option `{key}` is {found}: use {} (type `{}`)",
                    kind.expected(),
                    kind.name()
                );
                if let OptionKind::Enum(values) = kind {
                    message.push_str(&did_you_mean(
                        found.trim_matches('"'),
                        values.iter().map(String::as_str),
                    ));
                }
                Err((v.span(), message))
            }
        }
    };
    let default = match value("the default", &o.default) {
        Ok(v) => v,
        Err((span, message)) => {
            err(span, message);
            None
        }
    };
    let mut preset_values = BTreeMap::new();
    for (preset, v) in &o.presets {
        let known = Preset::parse(preset).is_some() || presets.contains(&preset.as_str());
        if !known {
            let mut names: Vec<&str> = Preset::VALUES.to_vec();
            names.extend(presets.iter().copied());
            err(
                v.span(),
                format!(
                    "unknown preset `{preset}`{}: give values for {} (the editions and this mod's presets)",
                    did_you_mean(preset, names.iter().copied()),
                    names.join(", ")
                ),
            );
            continue;
        }
        match value(&format!("the `{preset}` value"), v) {
            Ok(Some(p)) => {
                preset_values.insert(preset.clone(), p);
            }
            Ok(None) => {}
            Err((span, message)) => err(span, message),
        }
    }
    let doc = o.doc.get_ref().trim();
    if doc.is_empty() || doc.contains('\n') {
        err(
            o.doc.span(),
            "`doc` must be one line saying what the option changes".into(),
        );
    }
    if errors.len() > before {
        return None;
    }
    Some(OptionDecl {
        key,
        option: DeclaredOption {
            kind: kind?,
            default: default?,
            presets: preset_values,
            declared_by: mod_id.to_string(),
            doc: doc.to_string(),
            rule: o.rule,
            played: o.played,
        },
        at: src.error(o.key.span(), ""),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Vec<OptionDecl>, Diagnostics> {
        parse_options(&SourceText::new("options.toml", text), "m", &["quick"])
    }

    #[test]
    fn an_option_keeps_its_default_and_preset_values() {
        let o = parse(
            "[[option]]\nkey = \"blast\"\ntype = \"integer\"\nmin = 1\nmax = 3\ndefault = 1\npresets = { classic = 2, quick = 3 }\ndoc = \"How far a blast reaches.\"\nrule = \"R7.2.4\"\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let d = &o[0].option;
        assert_eq!(o[0].key, "blast");
        assert_eq!(
            d.kind,
            OptionKind::Integer {
                min: Some(1),
                max: Some(3)
            }
        );
        assert_eq!(d.value_for("v3"), &ParamValue::Int(1));
        assert_eq!(d.value_for("classic"), &ParamValue::Int(2));
        assert_eq!(d.value_for("quick"), &ParamValue::Int(3));
        assert_eq!((d.declared_by.as_str(), d.rule.as_str()), ("m", "R7.2.4"));
    }

    #[test]
    fn the_example_of_docs_rulesets_loads() {
        let doc = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/RULESETS.md"),
        )
        .expect("docs/RULESETS.md");
        let start = doc.find("```toml\n").expect("a toml example") + 8;
        let end = start + doc[start..].find("```").expect("its end");
        let o = parse(&doc[start..end]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(o.len(), 2);
        assert_eq!(o[0].option.value_for("quick"), &ParamValue::Int(3));
        assert_eq!(
            o[1].option.kind,
            OptionKind::Enum(vec!["ring".into(), "line".into()])
        );
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base/options.toml");
        let o = load_options(&base, "base", &[]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            o[0].option.value_for("classic"),
            &ParamValue::Str("as_bomb_no_hqs".into())
        );
    }

    #[test]
    fn every_problem_is_located_at_once() {
        let e = parse(concat!(
            "[[option]]\nkey = \"a\"\ntype = \"integer\"\nmin = 1\nmax = 3\ndefault = 5\ndoc = \"x\"\n",
            "[[option]]\nkey = \"b\"\ntype = \"enum\"\nvalues = [\"x\", \"y\"]\ndefault = \"z\"\npresets = { v3 = 1, nope = \"x\" }\ndoc = \"x\"\n",
            "[[option]]\nkey = \"hq_hp\"\ntype = \"number\"\ndefault = 1\ndoc = \"x\"\n",
        ))
        .expect_err("invalid");
        let text = e.to_string();
        for want in [
            "options.toml:6:11: the default of option `a` is 5: use a whole number from 1 to 3 (type `integer`)",
            "options.toml:12:11: the default of option `b` is \"z\"",
            "options.toml:13:28: unknown preset `nope`",
            "options.toml:13:18: the `v3` value of option `b` is 1",
            "options.toml:16:7: option `hq_hp` is one of the engine's own rule options",
            "options.toml:17:8: unknown option type `number`",
        ] {
            assert!(text.contains(want), "{want}\n---\n{text}");
        }
    }
}

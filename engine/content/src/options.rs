//! Rule options a mod declares in its `options.toml` (docs/RULESETS.md): each `[[option]]` names
//! a key the engine does not have, what values it takes, its default and its value in each
//! preset, for the mod's scripts to read with `ctx:option(key)`; each `[[implies]]` gives engine
//! keys values when declared options have given values (a variant played by the engine's rules).

use crate::diagnostic::{Diagnostic, Diagnostics, SourceText, parse_toml_every};
use crate::value::param;
use hexforge_core::Rules;
use hexforge_core::names::did_you_mean;
use hexforge_core::rules::Preset;
use hexforge_core::tile::{DeclaredOption, Implication, OptionKind, ParamValue};
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
    /// The `[[implies]]` tables, in file order.
    #[serde(default)]
    pub implies: Vec<ImpliesDef>,
}

/// Keys of an `[[implies]]` table with their values, each with its place in the file.
pub type SpannedTable = BTreeMap<Spanned<String>, Spanned<toml::Value>>;

/// One raw `[[implies]]` table of an `options.toml`.
#[derive(Deserialize, Debug)]
#[serde(deny_unknown_fields)]
pub struct ImpliesDef {
    /// Options this file declares and the value each must have.
    pub when: Spanned<SpannedTable>,
    /// Engine keys ([`Rules::KEYS`]) and the value each then takes.
    pub rules: Spanned<SpannedTable>,
}

/// A valid `options.toml`: its declared options and its implications.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OptionsFile {
    /// The `[[option]]` tables, checked, in file order.
    pub options: Vec<OptionDecl>,
    /// The `[[implies]]` tables, checked, in file order.
    pub implies: Vec<Implication>,
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
) -> Result<OptionsFile, Diagnostics> {
    parse_options(&SourceText::read(path, "options file")?, mod_id, presets)
}

/// Parses then validates an `options.toml` text; every problem is reported at once, each at its
/// `file:line:column`.
pub fn parse_options(
    src: &SourceText,
    mod_id: &str,
    presets: &[&str],
) -> Result<OptionsFile, Diagnostics> {
    let def: OptionsFileDef = parse_toml_every(src)?;
    let mut errors = Vec::new();
    let mut out: Vec<OptionDecl> = Vec::new();
    // The keys the file declares, valid or not, for `[[implies]]` to name.
    let keys: Vec<String> = def.option.iter().map(|o| o.key.get_ref().clone()).collect();
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
    let mut implies = Vec::new();
    for i in &def.implies {
        if let Some(i) = check_implies(src, i, mod_id, &keys, &out, &mut errors) {
            implies.push(i);
        }
    }
    if errors.is_empty() {
        Ok(OptionsFile {
            options: out,
            implies,
        })
    } else {
        errors.sort_by_key(|d| (d.line, d.column));
        Err(Diagnostics(errors))
    }
}

/// One `[[implies]]` checked against the file's declared options (`keys` as written, `declared`
/// those that passed their checks) and the engine's keys; its problems go to `errors` and `None`
/// is returned when there is any.
fn check_implies(
    src: &SourceText,
    i: &ImpliesDef,
    mod_id: &str,
    keys: &[String],
    declared: &[OptionDecl],
    errors: &mut Vec<Diagnostic>,
) -> Option<Implication> {
    let before = errors.len();
    let mut err = |span: Range<usize>, message: String| errors.push(src.error(span, message));
    if i.when.get_ref().is_empty() {
        err(
            i.when.span(),
            "`when` names no option: give at least one option this file declares and its value"
                .into(),
        );
    }
    if i.rules.get_ref().is_empty() {
        err(
            i.rules.span(),
            "`rules` names no engine key: give at least one engine rule option and its value"
                .into(),
        );
    }
    let mut when = Vec::new();
    for (key, value) in i.when.get_ref() {
        let k = key.get_ref();
        if !keys.contains(k) {
            let also = if Rules::KEYS.contains(&k.as_str()) {
                format!(" (`{k}` is an engine key: engine keys go in `rules`)")
            } else {
                did_you_mean(k, keys.iter().map(String::as_str))
            };
            err(
                key.span(),
                format!(
                    "`when` names option `{k}`, which this file does not declare{also}: name one of {}",
                    if keys.is_empty() {
                        "its `[[option]]` keys (it declares none)".to_string()
                    } else {
                        keys.join(", ")
                    }
                ),
            );
            continue;
        }
        // An option whose own declaration failed is reported there.
        let Some(d) = declared.iter().find(|d| d.key == *k) else {
            continue;
        };
        let kind = &d.option.kind;
        match param(value.get_ref()).ok().and_then(|p| kind.accept(&p)) {
            Some(p) => when.push((k.clone(), p)),
            None => {
                let found = value.get_ref().to_string();
                let mut message = format!(
                    "`when` gives option `{k}` the value {found}: use {} (type `{}`)",
                    kind.expected(),
                    kind.name()
                );
                if let OptionKind::Enum(values) = kind {
                    message.push_str(&did_you_mean(
                        found.trim_matches('"'),
                        values.iter().map(String::as_str),
                    ));
                }
                err(value.span(), message);
            }
        }
    }
    let mut rules = Vec::new();
    let mut check = Rules::default();
    for (key, value) in i.rules.get_ref() {
        let k = key.get_ref();
        if !Rules::KEYS.contains(&k.as_str()) {
            let also = if keys.contains(k) {
                format!(" (`{k}` is an option this file declares: such options go in `when`)")
            } else {
                did_you_mean(k, Rules::KEYS.iter().copied())
            };
            err(
                key.span(),
                format!(
                    "`rules` names `{k}`, which is not an engine rule option{also}: use one of the keys `hexforge rules` lists as the engine's"
                ),
            );
            continue;
        }
        match param(value.get_ref()) {
            Ok(p) => match check.set(k, &p) {
                Ok(()) => rules.push((k.clone(), p)),
                Err(e) => err(value.span(), e.to_string()),
            },
            Err(message) => err(value.span(), format!("`rules` key `{k}`: {message}")),
        }
    }
    (errors.len() == before).then(|| Implication {
        when,
        rules,
        declared_by: mod_id.to_string(),
    })
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
        parse_file(text).map(|f| f.options)
    }

    fn parse_file(text: &str) -> Result<OptionsFile, Diagnostics> {
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
        let o = load_options(&base, "base", &[])
            .unwrap_or_else(|e| panic!("{e}"))
            .options;
        assert_eq!(
            o[0].option.value_for("classic"),
            &ParamValue::Str("as_bomb_no_hqs".into())
        );
    }

    #[test]
    fn implies_keep_their_conditions_and_engine_keys() {
        let f = parse_file(concat!(
            "[[option]]\nkey = \"big\"\ntype = \"bool\"\ndefault = false\ndoc = \"x\"\n",
            "[[implies]]\nwhen = { big = \"on\" }\nrules = { hand_size = 6, extra_discards = \"none\" }\n",
        ))
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            f.implies,
            vec![Implication {
                when: vec![("big".into(), ParamValue::Bool(true))],
                rules: vec![
                    ("extra_discards".into(), ParamValue::Str("none".into())),
                    ("hand_size".into(), ParamValue::Int(6)),
                ],
                declared_by: "m".into(),
            }]
        );
    }

    /// The `[[implies]]` example of docs/RULESETS.md loads, and a table's rules follow it: the
    /// implied keys, and an explicit `--option` of an engine key over them.
    #[test]
    fn the_implies_example_of_docs_rulesets_loads_and_plays() {
        let doc = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/RULESETS.md"),
        )
        .expect("docs/RULESETS.md");
        let at = doc.find("\n[[implies]]").expect("an [[implies]] example");
        let start = doc[..at].rfind("```toml\n").expect("its start") + 8;
        let end = start + doc[start..].find("```").expect("its end");
        let f = parse_file(&doc[start..end]).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!((f.options.len(), f.implies.len()), (2, 2));
        let declared: BTreeMap<String, DeclaredOption> = f
            .options
            .iter()
            .map(|o| (o.key.clone(), o.option.clone()))
            .collect();
        let table = |options: &[&str]| {
            let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            crate::table_rules("v3", &options, &[], &declared, &f.implies)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        let off = Rules {
            options: Default::default(),
            ..table(&[])
        };
        assert_eq!(off, Rules::preset(Preset::V3));
        let r = table(&["big_hands=true"]);
        assert_eq!((r.hand_size, r.tiles_per_turn), (5, 0));
        let r = table(&["big_hands=true", "big_hands_mode=quick"]);
        assert_eq!((r.hand_size, r.tiles_per_turn), (5, 3));
        let r = table(&["big_hands=true", "big_hands_mode=quick", "tiles_per_turn=2"]);
        assert_eq!((r.hand_size, r.tiles_per_turn), (5, 2));
    }

    /// Each mode of the base mod's Reinforcements sets the engine keys of its rules (R9.2).
    #[test]
    fn the_base_mods_reinforcements_set_the_hand_keys_of_each_mode() {
        use hexforge_core::rules::ExtraDiscards;
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base/options.toml");
        let f = load_options(&base, "base", &[]).unwrap_or_else(|e| panic!("{e}"));
        let declared: BTreeMap<String, DeclaredOption> = f
            .options
            .iter()
            .map(|o| (o.key.clone(), o.option.clone()))
            .collect();
        let table = |preset: &str, options: &[&str]| {
            let options: Vec<String> = options.iter().map(|o| o.to_string()).collect();
            crate::table_rules(preset, &options, &[], &declared, &f.implies)
                .unwrap_or_else(|e| panic!("{e}"))
        };
        for preset in ["classic", "v3", "v2025"] {
            let mut plain = Rules::preset(Preset::parse(preset).expect("an edition"));
            plain.start_options(&declared, preset);
            assert_eq!(table(preset, &[]), plain, "{preset}");
        }
        let on = "reinforcements=true";
        let v3 = table("v3", &[on]);
        assert_eq!((v3.hand_size, v3.tiles_per_turn), (6, 2));
        assert_eq!(v3.extra_discards, ExtraDiscards::None);
        assert!(!v3.alternative_start && !v3.bad_draw_full_hand);
        // The 2025 edition's own mode is 2025's.
        let v2025 = table("v2025", &[on]);
        assert_eq!((v2025.hand_size, v2025.tiles_per_turn), (6, 2));
        assert_eq!(v2025.extra_discards, ExtraDiscards::Counted);
        assert!(v2025.bad_draw_full_hand && !v2025.alternative_start);
        let monolith = table("v3", &[on, "reinforcements_mode=monolith"]);
        assert_eq!(monolith.extra_discards, ExtraDiscards::None);
        assert!(monolith.alternative_start && monolith.hand_size == 6);
        // A mode alone changes nothing.
        assert_eq!(table("v3", &["reinforcements_mode=v2025"]).hand_size, 3);
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

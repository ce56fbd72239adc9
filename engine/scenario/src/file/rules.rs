//! The top of a scenario file: the preset, the board and the rule options it sets, read into the
//! rules the scenario plays by.

use super::def::ScenarioDef;
use super::read::Reader;
use hexforge_content::value::param;
use hexforge_content::{Board, find_board};
use hexforge_core::names::did_you_mean;
use hexforge_core::rules::Preset;
use hexforge_core::{Catalog, Rules};

/// The rules of the file (its preset with its options and the keys they imply) and the board it
/// names; the standard board and `v3` stand in for unknown ones.
pub(super) fn read<'b>(
    r: &mut Reader<'_>,
    def: &ScenarioDef,
    catalog: &Catalog,
    boards: &[&'b Board],
) -> (Rules, &'b Board) {
    let preset = match &def.preset {
        None => Preset::V3,
        Some(p) => Preset::parse(p.get_ref()).unwrap_or_else(|| {
            r.err(
                p.span(),
                format!(
                    "unknown preset `{}`{}: use classic, v3 or v2025",
                    p.get_ref(),
                    did_you_mean(p.get_ref(), Preset::VALUES.iter().copied())
                ),
            );
            Preset::V3
        }),
    };
    let mut rules = Rules::preset(preset);
    rules.start_options(catalog.options(), preset.as_str());
    let board: &Board = match &def.board {
        None => &Board::built_in()[0],
        Some(b) => match find_board(boards.iter().copied(), b.get_ref()) {
            Ok(found) => found,
            Err(e) => {
                r.err(b.span(), e.to_string());
                &Board::built_in()[0]
            }
        },
    };
    if def
        .board
        .as_ref()
        .is_some_and(|b| b.get_ref() == "extended")
    {
        rules.extended_board = true;
    }
    for (key, value) in &def.options {
        match param(value.get_ref()) {
            Ok(v) => {
                if let Err(e) = rules.set_any(catalog.options(), key, &v) {
                    r.err(value.span(), e.to_string());
                }
            }
            Err(msg) => r.err(value.span(), format!("option `{key}`: {msg}")),
        }
    }
    // The engine keys the declared options imply, but those the scenario sets (docs/RULESETS.md).
    let explicit: Vec<&str> = def.options.keys().map(String::as_str).collect();
    if let Err(e) = rules.imply(catalog.options(), catalog.implications(), &explicit) {
        r.err(def.name.span(), e.to_string());
    }
    (rules, board)
}

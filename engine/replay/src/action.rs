//! Actions as the words of an `action` line: written by [`encode_action`] and read back by
//! [`decode_action`], tiles by `army/tile`, hexes as `q r`, facings 0 to 5.

use hexforge_core::{Action, Catalog, Dir, Hex, Target, TileRef};

/// A tile as written: `army/tile`.
fn tile_name(catalog: &Catalog, t: TileRef) -> String {
    catalog.get(t).full_id()
}

/// A hex as written: `q r`.
fn hex(h: Hex) -> String {
    format!("{} {}", h.q(), h.r())
}

/// An action as a replay line (after `action `): tiles by `army/tile`, hexes as `q r`.
pub fn encode_action(action: &Action, catalog: &Catalog) -> String {
    match *action {
        Action::Place {
            tile,
            hex: h,
            facing,
        } => format!(
            "place {} {} {}",
            tile_name(catalog, tile),
            hex(h),
            facing.index()
        ),
        Action::Instant { tile, target } => {
            let t = tile_name(catalog, tile);
            match target {
                Target::None => format!("instant {t} none"),
                Target::Move { unit, to, facing } => format!(
                    "instant {t} move {} {} {}",
                    hex(unit),
                    hex(to),
                    facing.index()
                ),
                Target::Push { pusher, target } => {
                    format!("instant {t} push {} {}", hex(pusher), hex(target))
                }
                Target::Unit(h) => format!("instant {t} unit {}", hex(h)),
                Target::Hex(h) => format!("instant {t} hex {}", hex(h)),
            }
        }
        Action::Move { unit, to, facing } => {
            format!("move {} {} {}", hex(unit), hex(to), facing.index())
        }
        Action::Discard { tile } => format!("discard {}", tile_name(catalog, tile)),
        Action::Redraw => "redraw".to_string(),
        Action::EndTurn => "end_turn".to_string(),
        Action::Rule {
            rule,
            action,
            target,
            facing,
            tile,
        } => {
            let (r, a) = catalog
                .game_rules()
                .get(usize::from(rule))
                .map(|r| {
                    let a = r
                        .actions
                        .get(usize::from(action))
                        .map_or_else(|| action.to_string(), |a| a.name.clone());
                    (format!("{}/{}", r.mod_id, r.name), a)
                })
                .unwrap_or_else(|| (rule.to_string(), action.to_string()));
            match (target, facing, tile) {
                (Some(h), Some(f), _) => format!("rule {r} {a} {} {}", hex(h), f.index()),
                (Some(h), None, _) => format!("rule {r} {a} {}", hex(h)),
                (None, _, Some(t)) => format!("rule {r} {a} tile {}", tile_name(catalog, t)),
                (None, _, None) => format!("rule {r} {a} none"),
            }
        }
    }
}

/// The words an action line starts with.
const ACTIONS: &[&str] = &[
    "place", "instant", "move", "discard", "redraw", "end_turn", "rule",
];

/// How each action is written, for errors about one.
const SHAPES: &str = "write `place ARMY/TILE Q R FACING`, `instant ARMY/TILE none|unit Q R|hex Q R|push Q R Q R|move Q R Q R FACING`, `move Q R Q R FACING`, `discard ARMY/TILE`, `redraw`, `end_turn` or `rule MOD/RULE ACTION none|Q R|Q R FACING|tile ARMY/TILE`";

/// What a replay's reader is told when it names a tile no loaded army has.
const LOAD_THE_REPLAYS_MODS: &str = ": load the mods the replay was recorded with (--mods DIR)";

/// Reads an action written by [`encode_action`] in a replay: a tile no loaded army has is
/// refused with the advice to load the replay's mods.
pub fn decode_action(text: &str, catalog: &Catalog) -> Result<Action, String> {
    decode(text, catalog, LOAD_THE_REPLAYS_MODS)
}

/// Reads an action typed at a prompt in the words of [`encode_action`]: as [`decode_action`],
/// without the advice about a replay's mods.
pub fn decode_typed_action(text: &str, catalog: &Catalog) -> Result<Action, String> {
    decode(text, catalog, "")
}

/// Reads an action's words; `missing_tile` ends the error about a tile no loaded army has.
fn decode(text: &str, catalog: &Catalog, missing_tile: &str) -> Result<Action, String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let tile = |w: Option<&&str>| -> Result<TileRef, String> {
        let name = w.ok_or("a tile is missing")?;
        catalog.find(name).ok_or_else(|| {
            let ids = catalog.full_ids();
            format!(
                "no tile `{name}` is loaded{}{missing_tile}",
                hexforge_core::names::did_you_mean(name, ids.iter().map(String::as_str))
            )
        })
    };
    let int = |i: usize| -> Result<i32, String> {
        words
            .get(i)
            .ok_or_else(|| format!("`{text}` is too short: {SHAPES}"))?
            .parse()
            .map_err(|_| {
                format!(
                    "`{}` is not a whole number: hexes are `q r` and facings 0 to 5",
                    words[i]
                )
            })
    };
    let hx = |i: usize| -> Result<Hex, String> { Ok(Hex::new(int(i)?, int(i + 1)?)) };
    let dir = |i: usize| -> Result<Dir, String> {
        let d = int(i)?;
        u8::try_from(d)
            .ok()
            .filter(|d| *d < 6)
            .map(Dir::new)
            .ok_or_else(|| format!("facing {d} is not a direction: use 0 to 5"))
    };
    let exact = |n: usize| -> Result<(), String> {
        if words.len() == n {
            Ok(())
        } else {
            Err(format!("`{text}` should have {n} words: {SHAPES}"))
        }
    };
    let action = match words.first().copied() {
        Some("place") => {
            exact(5)?;
            Action::Place {
                tile: tile(words.get(1))?,
                hex: hx(2)?,
                facing: dir(4)?,
            }
        }
        Some("instant") => {
            let t = tile(words.get(1))?;
            let target = match words.get(2).copied() {
                Some("none") => {
                    exact(3)?;
                    Target::None
                }
                Some("move") => {
                    exact(8)?;
                    Target::Move {
                        unit: hx(3)?,
                        to: hx(5)?,
                        facing: dir(7)?,
                    }
                }
                Some("push") => {
                    exact(7)?;
                    Target::Push {
                        pusher: hx(3)?,
                        target: hx(5)?,
                    }
                }
                Some("unit") => {
                    exact(5)?;
                    Target::Unit(hx(3)?)
                }
                Some("hex") => {
                    exact(5)?;
                    Target::Hex(hx(3)?)
                }
                _ => {
                    return Err(format!(
                        "`{text}`: the target is none, move, push, unit or hex{}",
                        hexforge_core::names::did_you_mean(
                            words.get(2).copied().unwrap_or_default(),
                            ["none", "move", "push", "unit", "hex"]
                        )
                    ));
                }
            };
            Action::Instant { tile: t, target }
        }
        Some("move") => {
            exact(6)?;
            Action::Move {
                unit: hx(1)?,
                to: hx(3)?,
                facing: dir(5)?,
            }
        }
        Some("discard") => {
            exact(2)?;
            Action::Discard {
                tile: tile(words.get(1))?,
            }
        }
        Some("redraw") => {
            exact(1)?;
            Action::Redraw
        }
        Some("end_turn") => {
            exact(1)?;
            Action::EndTurn
        }
        Some("rule") => {
            let named = words.get(1).copied().unwrap_or_default();
            let rules = catalog.game_rules();
            let Some(rule) = rules
                .iter()
                .position(|r| format!("{}/{}", r.mod_id, r.name) == named)
            else {
                let known: Vec<String> = rules
                    .iter()
                    .map(|r| format!("{}/{}", r.mod_id, r.name))
                    .collect();
                return Err(format!(
                    "`{text}`: no loaded mod defines the game rule `{named}`{}; load its mod (rules loaded: {})",
                    hexforge_core::names::did_you_mean(named, known.iter().map(String::as_str)),
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ));
            };
            let wanted = words.get(2).copied().unwrap_or_default();
            let actions = &rules[rule].actions;
            let Some(action) = actions.iter().position(|a| a.name == wanted) else {
                return Err(format!(
                    "`{text}`: the game rule `{named}` has no action `{wanted}`{}",
                    hexforge_core::names::did_you_mean(
                        wanted,
                        actions.iter().map(|a| a.name.as_str())
                    )
                ));
            };
            let (target, facing, tile) = match words.get(3).copied() {
                Some("none") => {
                    exact(4)?;
                    (None, None, None)
                }
                Some("tile") => {
                    exact(5)?;
                    (None, None, Some(tile(words.get(4))?))
                }
                _ if words.len() == 6 => (Some(hx(3)?), Some(dir(5)?), None),
                _ => {
                    exact(5)?;
                    (Some(hx(3)?), None, None)
                }
            };
            Action::Rule {
                rule: rule as u8,
                action: action as u8,
                target,
                facing,
                tile,
            }
        }
        _ => {
            return Err(format!(
                "unknown action `{text}`{}: an action is place, instant, move, discard, redraw, end_turn or rule",
                hexforge_core::names::did_you_mean(
                    words.first().copied().unwrap_or_default(),
                    ACTIONS.iter().copied()
                )
            ));
        }
    };
    Ok(action)
}

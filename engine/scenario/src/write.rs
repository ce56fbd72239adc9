//! Writing a board as a scenario file (docs/SCENARIO_GAMES.md): the players with their HQ HP, every
//! tile with its facing and wounds, the rules that differ from the preset, and as expectations
//! what one battle on this board gives now, so the file pins that battle down.

use hexforge_core::battle::{self, Context};
use hexforge_core::hooks::HookError;
use hexforge_core::marker::{Lasts, MarkOn};
use hexforge_core::rules::Rules;
use hexforge_core::tile::ParamValue;
use hexforge_core::{AbilityHooks, Battlefield, DefaultPolicy, Seat};
use std::fmt::Write as _;

/// `field` as a scenario file named `title` on the board `board` (its id: `standard`, `extended`
/// or a mod's; empty is `standard`);
/// `armies[i]` is the army id of seat `i`. The expectations come from one battle resolved on a
/// copy of the board by the engine with its default decisions; the error is that battle's (a
/// failing ability script).
pub fn scenario_text(
    field: &Battlefield,
    ctx: Context<'_>,
    armies: &[&str],
    hooks: &mut dyn AbilityHooks,
    title: &str,
    board: &str,
) -> Result<String, HookError> {
    let mut s = String::new();
    write_setup(&mut s, field, ctx, armies, title, board);
    // What one battle gives on this board, by the engine.
    let mut after = field.clone();
    // The scripts start as `hexforge scenario` starts its first battle.
    hooks.reseed(0);
    battle::resolve(&mut after, ctx, hooks, &mut DefaultPolicy, &mut ())?;
    let removed: Vec<String> = labels(field, ctx)
        .into_iter()
        .filter(|(c, _)| after.at(*c).is_none())
        .map(|(_, l)| format!("\"{l}\""))
        .collect();
    let hq: Vec<String> = after
        .players()
        .map(|p| format!("{} = {}", player_id(p), after.hq_hp(p)))
        .collect();
    line(&mut s, "\n[expect]");
    line(&mut s, &format!("hq = {{ {} }}", hq.join(", ")));
    line(&mut s, &format!("removed = [{}]", removed.join(", ")));
    Ok(s)
}

/// Everything of the file but the expectations.
fn write_setup(
    s: &mut String,
    field: &Battlefield,
    ctx: Context<'_>,
    armies: &[&str],
    title: &str,
    board: &str,
) {
    let rules = ctx.rules;
    let preset = rules.preset;
    let base = Rules::preset(preset);
    line(s, &format!("# {title}"));
    line(s, &format!("name = \"{}\"", escaped(title)));
    line(s, &format!("preset = \"{}\"", preset.as_str()));
    let board = if board.is_empty() { "standard" } else { board };
    line(s, &format!("board = \"{board}\""));
    let mut changed: Vec<(&str, String)> = Rules::KEYS
        .iter()
        .filter_map(|k| {
            let now = rules.get(k)?;
            (base.get(k).as_ref() != Some(&now)).then(|| (*k, toml_value(&now)))
        })
        .filter(|(k, _)| *k != "preset")
        .collect();
    // The options mods declare, where they differ from the preset's value.
    let declared = ctx.catalog.options();
    changed.extend(declared.iter().filter_map(|(k, d)| {
        let now = rules.option(declared, k)?;
        (&now != d.value_for(preset.as_str())).then(|| (k.as_str(), toml_value(&now)))
    }));
    if !changed.is_empty() {
        line(s, "\n[options]");
        for (k, v) in changed {
            line(s, &format!("{k} = {v}"));
        }
    }
    // Teams are written with more than two players, or when two share one (a duel's default is
    // each player on a team of their own).
    let teams = field.player_count() > 2
        || field
            .players()
            .any(|p| usize::from(field.team(p)) != p.index());
    for p in field.players() {
        line(s, "\n[[player]]");
        line(s, &format!("id = \"{}\"", player_id(p)));
        let army = armies.get(p.index()).copied().unwrap_or_default();
        line(s, &format!("army = \"{army}\""));
        line(s, &format!("hq = {}", field.hq_hp(p)));
        if teams {
            line(s, &format!("team = \"t{}\"", field.team(p) + 1));
        }
        markers(s, field, MarkOn::Player(p));
    }
    let cat = ctx.catalog;
    for (c, label) in labels(field, ctx) {
        let Some(t) = field.at(c) else { continue };
        let h = field.shape().hex(c);
        line(s, "\n[[tile]]");
        line(s, &format!("label = \"{label}\""));
        line(s, &format!("owner = \"{}\"", player_id(t.owner)));
        line(s, &format!("tile = \"{}\"", cat.get(t.tile).full_id()));
        line(s, &format!("at = [{}, {}]", h.q(), h.r()));
        line(s, &format!("facing = {}", t.facing.index()));
        if t.wounds > 0 {
            line(s, &format!("wounds = {}", t.wounds));
        }
        markers(s, field, MarkOn::Tile(c));
    }
    for m in field.marks() {
        if let MarkOn::Hex(c) = m.on {
            let h = field.shape().hex(c);
            line(s, "\n[[hex_marker]]");
            line(s, &format!("at = [{}, {}]", h.q(), h.r()));
            line(s, &format!("name = \"{}\"", m.name));
            line(s, &format!("lasts = {}", lasts(m.lasts)));
            if m.value != 0 {
                line(s, &format!("value = {}", m.value));
            }
        }
    }
    for l in field.links() {
        line(s, "\n[[link]]");
        line(s, &format!("kind = \"{}\"", l.kind));
        line(s, &format!("owner = \"{}\"", player_id(l.owner)));
        let hexes: Vec<String> = field
            .shape()
            .hexes_in(l.segments)
            .map(|h| format!("[{}, {}]", h.q(), h.r()))
            .collect();
        line(s, &format!("hexes = [{}]", hexes.join(", ")));
        line(s, &format!("loss = \"{}\"", l.loss().name()));
        line(s, &format!("shared = {}", l.shared()));
    }
}

/// The `markers = [...]` line of a tile or player, when it carries any.
fn markers(s: &mut String, field: &Battlefield, on: MarkOn) {
    let list: Vec<String> = field
        .marks()
        .iter()
        .filter(|m| m.on == on)
        .map(|m| {
            let value = if m.value != 0 {
                format!(", value = {}", m.value)
            } else {
                String::new()
            };
            format!(
                "{{ name = \"{}\", lasts = {}{value} }}",
                m.name,
                lasts(m.lasts)
            )
        })
        .collect();
    if !list.is_empty() {
        line(s, &format!("markers = [{}]", list.join(", ")));
    }
}

/// How long a marker lasts, as a scenario file writes it.
fn lasts(l: Lasts) -> String {
    match l {
        Lasts::Turn => "\"turn\"".into(),
        Lasts::Battle => "\"battle\"".into(),
        Lasts::Turns(n) => n.to_string(),
        Lasts::Permanent => "\"permanent\"".into(),
    }
}

/// The label of each tile on the board, in the board's order: `t<n>_<tile id>`.
fn labels(field: &Battlefield, ctx: Context<'_>) -> Vec<(hexforge_core::Cell, String)> {
    field
        .tiles()
        .enumerate()
        .map(|(i, (c, t))| (c, format!("t{}_{}", i + 1, ctx.catalog.get(t.tile).id)))
        .collect()
}

/// A scenario's player id for a seat: `p1`, `p2`...
pub fn player_id(p: Seat) -> String {
    format!("p{}", p.index() + 1)
}

fn line(s: &mut String, text: &str) {
    // Writing to a String cannot fail.
    let _ = writeln!(s, "{text}");
}

fn escaped(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn toml_value(v: &ParamValue) -> String {
    match v {
        ParamValue::Str(s) => format!("\"{}\"", escaped(s)),
        ParamValue::List(l) => format!(
            "[{}]",
            l.iter().map(toml_value).collect::<Vec<_>>().join(", ")
        ),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_scenario, run_scenario};
    use hexforge_content::SourceText;
    use hexforge_core::tile::{Tile, TileKind};
    use hexforge_core::{Catalog, Initiative, NoAbilities};

    fn catalog() -> Catalog {
        let mut c = Catalog::new();
        let mut hq = Tile::new("x", "hq", TileKind::Hq);
        hq.initiative = Initiative::new(&[0]).expect("init");
        let mut brute = Tile::new("x", "brute", TileKind::Soldier);
        brute.initiative = Initiative::new(&[2]).expect("init");
        brute.toughness = 1;
        brute.edges[0].melee = 1;
        c.add_army("x", "X", 35, vec![hq, brute]).expect("army");
        c
    }

    /// The scenario `text` read, and its board written back as a file titled `title`.
    fn rewritten(cat: &Catalog, text: &str, title: &str) -> (crate::Scenario, String) {
        let s = parse_scenario(&SourceText::new("s.toml", text), cat).expect("valid");
        let field = Battlefield::new(s.setup.clone(), cat).expect("legal board");
        let ctx = Context {
            catalog: cat,
            rules: &s.rules,
        };
        let written = scenario_text(
            &field,
            ctx,
            &["x", "x"],
            &mut NoAbilities,
            title,
            "standard",
        )
        .expect("the battle resolves");
        (s, written)
    }

    #[test]
    fn a_written_board_reads_back_and_its_expectations_hold() {
        let cat = catalog();
        let text = r#"name = "start"
[[player]]
id = "a"
army = "x"
[[player]]
id = "b"
army = "x"
hq = 17
[[tile]]
owner = "a"
tile = "x/hq"
at = [0, 1]
[[tile]]
owner = "b"
tile = "x/hq"
at = [0, -1]
[[tile]]
owner = "a"
tile = "x/brute"
at = [0, 0]
facing = 0
wounds = 0
"#;
        let (_, written) = rewritten(&cat, text, "Brute \"test\"");
        assert!(
            written.contains("name = \"Brute \\\"test\\\"\""),
            "{written}"
        );
        // The brute hits b's HQ for 1: the expectations say so, and the file passes.
        assert!(written.contains("hq = { p1 = 20, p2 = 16 }"), "{written}");
        let back = parse_scenario(&SourceText::new("w.toml", &written), &cat)
            .unwrap_or_else(|e| panic!("{written}\n{e:?}"));
        // Each player's army reads back, in seat order.
        assert_eq!(back.armies, ["x", "x"]);
        let report = run_scenario(&back, &cat, &mut NoAbilities);
        assert!(report.passed(), "{:?}\n{written}", report.failures);
    }

    #[test]
    fn markers_of_a_written_board_read_back() {
        let cat = catalog();
        let text = r#"name = "marked"
[[player]]
id = "a"
army = "x"
markers = [{ name = "tide", value = 3 }]
[[player]]
id = "b"
army = "x"
[[tile]]
owner = "a"
tile = "x/hq"
at = [0, 1]
markers = [{ name = "soaked", lasts = 2, value = -4 }, { name = "unpushable", lasts = "battle" }]
[[tile]]
owner = "b"
tile = "x/hq"
at = [0, -1]
[[hex_marker]]
at = [1, 0]
name = "flooded"
lasts = "turn"
value = 1
"#;
        let s = parse_scenario(&SourceText::new("s.toml", text), &cat).expect("valid");
        let mut field = Battlefield::new(s.setup.clone(), &cat).expect("legal board");
        for mark in &s.marks {
            field.apply(&hexforge_core::Event::Marked { mark: *mark });
        }
        assert_eq!(field.marks().len(), 4);
        let ctx = Context {
            catalog: &cat,
            rules: &s.rules,
        };
        let written = scenario_text(&field, ctx, &["x", "x"], &mut NoAbilities, "m", "standard")
            .expect("the battle resolves");
        assert!(
            written.contains("markers = [{ name = \"soaked\", lasts = 2, value = -4 }, { name = \"unpushable\", lasts = \"battle\" }]"),
            "{written}"
        );
        let back = parse_scenario(&SourceText::new("w.toml", &written), &cat)
            .unwrap_or_else(|e| panic!("{written}\n{e:?}"));
        let mut again = Battlefield::new(back.setup.clone(), &cat).expect("legal board");
        for mark in &back.marks {
            again.apply(&hexforge_core::Event::Marked { mark: *mark });
        }
        assert_eq!(again.marks(), field.marks(), "{written}");
    }

    #[test]
    fn linked_units_of_a_written_board_read_back() {
        let cat = catalog();
        let text = r#"name = "linked"
[[player]]
id = "a"
army = "x"
[[player]]
id = "b"
army = "x"
[[tile]]
owner = "a"
tile = "x/hq"
at = [0, 1]
[[tile]]
owner = "b"
tile = "x/hq"
at = [0, -1]
[[link]]
kind = "monolith"
owner = "a"
hexes = [[0, 1], [1, 1], [1, 0]]
loss = "segment"
"#;
        let s = parse_scenario(&SourceText::new("s.toml", text), &cat).expect("valid");
        assert_eq!(s.links.len(), 1);
        assert!(
            !s.links[0].shared(),
            "a segment unit is not shared unless it says so"
        );
        let mut field = Battlefield::new(s.setup.clone(), &cat).expect("legal board");
        for link in &s.links {
            field.apply(&hexforge_core::Event::Linked { link: *link });
        }
        let ctx = Context {
            catalog: &cat,
            rules: &s.rules,
        };
        let written = scenario_text(&field, ctx, &["x", "x"], &mut NoAbilities, "m", "standard")
            .expect("the battle resolves");
        let back = parse_scenario(&SourceText::new("w.toml", &written), &cat)
            .unwrap_or_else(|e| panic!("{written}\n{e:?}"));
        assert_eq!(back.links, s.links, "{written}");
    }

    #[test]
    fn a_split_linked_unit_is_refused_at_its_hexes() {
        let cat = catalog();
        let text = r#"name = "split"
[[player]]
id = "a"
army = "x"
[[player]]
id = "b"
army = "x"
[[tile]]
owner = "a"
tile = "x/hq"
at = [0, 1]
[[tile]]
owner = "b"
tile = "x/hq"
at = [0, -1]
[[link]]
kind = "structure"
owner = "a"
hexes = [[0, 1], [0, -1]]
"#;
        let e = parse_scenario(&SourceText::new("s.toml", text), &cat).expect_err("split");
        let msg = e.to_string();
        assert!(
            msg.contains("s.toml:19:9") && msg.contains("not in one piece"),
            "{msg}"
        );
    }

    #[test]
    fn two_players_sharing_a_team_keep_it_in_the_file() {
        let cat = catalog();
        let text = "name = \"allies\"\n[[player]]\nid = \"a\"\narmy = \"x\"\nteam = \"red\"\n[[player]]\nid = \"b\"\narmy = \"x\"\nteam = \"red\"\n[[tile]]\nowner = \"a\"\ntile = \"x/hq\"\nat = [0, 1]\n";
        let (s, written) = rewritten(&cat, text, "allies");
        assert_eq!(written.matches("team = \"t1\"").count(), 2, "{written}");
        let back = parse_scenario(&SourceText::new("w.toml", &written), &cat)
            .unwrap_or_else(|e| panic!("{written}\n{e:?}"));
        assert_eq!(back.setup.players, s.setup.players);
        // A duel of two teams writes none, as before.
        let duel = text
            .replace("team = \"red\"\n[[tile]]", "[[tile]]")
            .replacen("team = \"red\"\n", "", 1);
        let (_, written) = rewritten(&cat, &duel, "duel");
        assert!(!written.contains("team ="), "{written}");
    }
}

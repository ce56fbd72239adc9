//! A person at the terminal as a player (`hexforge host --seat N=me`, `hexforge join`): the
//! legal actions listed by number, one chosen on standard input by its number or its words
//! (`help`, `board` and `list` answered in between); a decision put to the seat, its options
//! listed and one chosen by its number.

use hexforge_core::decision::Decision;
use hexforge_core::game::{LegalActions, Player};
use hexforge_core::{AbilityHooks, Battlefield, Catalog, Game};
use hexforge_replay::{decode_typed_action, encode_action};
use std::io::{BufRead, Write};

/// The line that asks for a choice; scripts driving a seat wait for it.
pub const PROMPT: &str = "Choose an action: its number or its words";
/// The line that asks for a decision's option.
pub const DECIDE_PROMPT: &str = "Choose an option: its number";

/// A person choosing actions at the terminal, and answering the decisions of battles and plays
/// put to their seat (docs/DECISIONS.md) by the option's number.
pub struct Terminal {
    /// The tiles, to name the options of a decision.
    pub catalog: std::sync::Arc<Catalog>,
    /// Standard input has closed: the last action listed is played from then on, said once.
    pub input_closed: bool,
}

impl Terminal {
    /// A person at this terminal choosing among the tiles of `catalog`.
    pub fn new(catalog: std::sync::Arc<Catalog>) -> Self {
        Terminal {
            catalog,
            input_closed: false,
        }
    }
}

impl Player for Terminal {
    fn decide(&mut self, field: &Battlefield, decision: &Decision<'_>) -> usize {
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        ask_option(
            &mut out,
            &mut std::io::stdin().lock(),
            (field, decision),
            &self.catalog,
        )
    }

    fn act(&mut self, game: &Game, legal: &LegalActions, _: &mut dyn AbilityHooks) -> usize {
        let catalog = game.catalog();
        let last = legal.len().saturating_sub(1);
        if self.input_closed {
            return last;
        }
        let mut out = crate::plain::Plain::new(std::io::stdout().lock());
        if let Some(seat) = game.current() {
            let hand: Vec<String> = game
                .hand(seat)
                .iter()
                .map(|t| catalog.get(*t).full_id())
                .collect();
            let _ = writeln!(
                out,
                "Your turn ({}, {}), turn {}; in hand: {}",
                seat,
                game.army(seat),
                game.turn_number(),
                if hand.is_empty() {
                    "nothing".to_string()
                } else {
                    hand.join(", ")
                }
            );
        }
        for (i, a) in legal.iter().enumerate() {
            let _ = writeln!(out, "  {i:>4}  {}", encode_action(&a, catalog));
        }
        let stdin = std::io::stdin();
        loop {
            let _ = writeln!(out, "{PROMPT} (0 to {last}):");
            let _ = out.flush();
            let mut line = String::new();
            match stdin.lock().read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = writeln!(
                        out,
                        "standard input is closed: the last action listed is played from now on"
                    );
                    self.input_closed = true;
                    return last;
                }
                Ok(_) => {}
            }
            match line.trim() {
                "help" | "?" => {
                    let _ = writeln!(out, "{HELP}");
                    continue;
                }
                "board" => {
                    for l in board_lines(game) {
                        let _ = writeln!(out, "{l}");
                    }
                    continue;
                }
                "list" => {
                    for (i, a) in legal.iter().enumerate() {
                        let _ = writeln!(out, "  {i:>4}  {}", encode_action(&a, catalog));
                    }
                    continue;
                }
                _ => {}
            }
            match choose(line.trim(), legal, (game, catalog)) {
                Ok(i) => return i,
                Err(why) => {
                    let _ = writeln!(out, "{why} (`help` tells what to type)");
                }
            }
        }
    }
}

/// What `help` prints at the prompt.
pub const HELP: &str = "Type an action's number, or its words as the list writes them:
  place ARMY/TILE Q R FACING        a tile from your hand onto hex (Q, R)
  instant ARMY/TILE TARGET          an instant (its targets as listed: none, unit Q R, hex Q R, ...)
  move Q R Q R FACING               Mobility: a unit from one hex to another
  discard ARMY/TILE | redraw | end_turn
Facings: 0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW (the edge the tile's front points to).
Hexes are axial (Q, R): [0, 0] is the centre, [0, -1] north of it, [1, -1] north-east.
Also: `board` lists the tiles on the board and the HQs' hit points, `list` the actions again.";

/// The board in lines: each player's HQ hit points, then every tile on it (hex, owner, tile,
/// facing, wounds) in reading order.
fn board_lines(game: &Game) -> Vec<String> {
    let field = game.field();
    let catalog = game.catalog();
    let mut lines = Vec::new();
    let hp: Vec<String> = field
        .players()
        .map(|p| {
            format!(
                "player {} ({}) {} HP",
                p.index() + 1,
                game.army(p),
                field.hq_hp(p)
            )
        })
        .collect();
    lines.push(format!("HQs: {}", hp.join(", ")));
    for (c, p) in field.tiles() {
        let h = field.shape().hex(c);
        lines.push(format!(
            "  [{}, {}]  player {}  {}  facing {}{}",
            h.q(),
            h.r(),
            p.owner.index() + 1,
            catalog.get(p.tile).full_id(),
            p.facing.name(),
            if p.wounds > 0 {
                format!(
                    "  {} wound{}",
                    p.wounds,
                    if p.wounds == 1 { "" } else { "s" }
                )
            } else {
                String::new()
            }
        ));
    }
    if lines.len() == 1 {
        lines.push("  (no tile on the board yet)".to_string());
    }
    lines
}

/// Lists the options of `decision` on `out` and reads the number of one from `input`, asking
/// again until it is one of them; the first option when `input` ends.
pub fn ask_option(
    out: &mut impl Write,
    input: &mut impl BufRead,
    (field, decision): (&Battlefield, &Decision<'_>),
    catalog: &Catalog,
) -> usize {
    let by = field.at(decision.by).map_or_else(String::new, |p| {
        format!(
            " for {} on {}",
            catalog.get(p.tile).name,
            field.shape().hex(decision.by)
        )
    });
    let _ = writeln!(
        out,
        "Decide{by}: {}",
        hexforge_log::question_text(decision.question)
    );
    for (i, c) in decision.options.iter().enumerate() {
        let _ = writeln!(
            out,
            "  {i:>4}  {}",
            hexforge_log::choice_text(*c, field, catalog)
        );
    }
    let last = decision.options.len().saturating_sub(1);
    loop {
        let _ = writeln!(out, "{DECIDE_PROMPT} (0 to {last}):");
        let _ = out.flush();
        let mut line = String::new();
        match input.read_line(&mut line) {
            Ok(0) | Err(_) => {
                let _ = writeln!(out, "standard input is closed: taking the first option");
                return 0;
            }
            Ok(_) => {}
        }
        match line.trim().parse::<usize>() {
            Ok(n) if n <= last => return n,
            _ => {
                let _ = writeln!(out, "`{}`: choose 0 to {last}", line.trim());
            }
        }
    }
}

/// The listed action a person typed: its number, or its words as a replay writes them
/// (`end_turn`, `place moloch/gunner 0 1 3`). An action written right that the game does not
/// allow now is refused with the engine's reason (and its rule).
pub fn choose(
    text: &str,
    legal: &LegalActions,
    (game, catalog): (&Game, &Catalog),
) -> Result<usize, String> {
    let last = legal.len().saturating_sub(1);
    if text.is_empty() {
        return Err(format!(
            "type an action's number (0 to {last}) or its words, e.g. `end_turn`"
        ));
    }
    if let Ok(n) = text.parse::<i64>() {
        return match usize::try_from(n) {
            Ok(n) if n <= last => Ok(n),
            _ => Err(format!("there is no action {n}: choose 0 to {last}")),
        };
    }
    let action = decode_typed_action(text, catalog).map_err(|e| {
        if e.starts_with(&format!("`{text}`")) {
            e
        } else {
            format!("`{text}`: {e}")
        }
    })?;
    legal
        .position(|a| a == action)
        .ok_or_else(|| match game.check(&action) {
            Err(why) => format!("`{text}` is not allowed now: {why}"),
            Ok(()) => format!("`{text}` is not one of the actions listed: choose 0 to {last}"),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    /// The first state of moloch against borgo with this checkout's mods, and their tiles.
    fn moloch_against_borgo() -> (Game, Arc<Catalog>) {
        let loaded =
            hexforge_content::load_mods(
                &[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods")],
            );
        let header = hexforge_replay::header(
            ("v3", &[], "standard"),
            &loaded.mods,
            vec!["moloch".into(), "borgo".into()],
            3,
            3,
        );
        let catalog = Arc::new(loaded.catalog.clone());
        let game = hexforge_replay::start(
            &header,
            &loaded.mods,
            catalog.clone(),
            &mut hexforge_core::NoAbilities,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        (game, catalog)
    }

    #[test]
    fn an_action_is_chosen_by_its_number_or_its_words() {
        let (game, catalog) = moloch_against_borgo();
        let mut legal = LegalActions::new();
        game.legal_actions(&mut legal);
        assert!(legal.len() > 1);
        let c = (&game, &*catalog);
        assert_eq!(choose("1", &legal, c), Ok(1));
        let words = legal
            .get(1)
            .map(|a| encode_action(&a, &catalog))
            .unwrap_or_default();
        assert_eq!(choose(&words, &legal, c), Ok(1));
        let e = choose("999999", &legal, c).expect_err("out of range");
        assert!(e.starts_with("there is no action 999999"), "{e}");
        let e = choose("-1", &legal, c).expect_err("out of range");
        assert!(e.starts_with("there is no action -1"), "{e}");
        let e = choose("", &legal, c).expect_err("nothing typed");
        assert!(e.starts_with("type an action's number"), "{e}");
        let e = choose("fly away", &legal, c).expect_err("not an action");
        assert!(
            e.starts_with("`fly away`: ") && !e.contains("`fly away`: `fly away`"),
            "{e}"
        );
        // Written right but not allowed now: the engine's reason, with its rule.
        let e = choose("end_turn", &legal, c).expect_err("not now");
        assert!(e.starts_with("`end_turn` is not allowed now: "), "{e}");
        assert!(e.contains("(R2.3)"), "{e}");
    }

    #[test]
    fn a_decision_is_answered_by_the_number_of_an_option_asked_again_until_it_is_one() {
        let (game, catalog) = moloch_against_borgo();
        let field = game.field();
        let cell = |q, r| {
            field
                .shape()
                .cell(hexforge_core::Hex::new(q, r))
                .expect("a hex of the board")
        };
        let options = [
            hexforge_core::Choice::To { cell: cell(0, 1) },
            hexforge_core::Choice::To { cell: cell(1, 0) },
        ];
        let decision = Decision {
            question: hexforge_core::Question::PushTo,
            by: cell(0, 0),
            player: hexforge_core::Seat::new(1),
            options: &options,
        };
        let mut out = Vec::new();
        let mut input = std::io::Cursor::new("7\nsoon\n1\n");
        let pick = ask_option(&mut out, &mut input, (field, &decision), &catalog);
        assert_eq!(pick, 1);
        let text = String::from_utf8(out).expect("text");
        assert!(
            text.contains("an enemy pushes this unit: where does it go? (R5.3.3"),
            "{text}"
        );
        assert!(text.contains("   1  To [1, 0]"), "{text}");
        assert!(text.contains("`7`: choose 0 to 1"), "{text}");
        assert!(text.contains("`soon`: choose 0 to 1"), "{text}");
        // No more input: the first option.
        let mut none = std::io::Cursor::new("");
        assert_eq!(
            ask_option(&mut Vec::new(), &mut none, (field, &decision), &catalog),
            0
        );
    }
}

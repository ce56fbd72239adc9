//! Running a scenario of a game in progress (`[game]`): the board and every player's piles become
//! an engine [`Game`], each step is an [`Action`] of the player whose turn it is, and the
//! expectations may also name hands, piles, whose turn it is and the battles fought.

use crate::file::{GameStart, PlayStep, Scenario, Step};
use crate::report::{Frame, Report, check, compare_sets, refused, unused_choices, winners};
use crate::track::{ScenarioDecider, Tracked, labels, play_of, scripted_target, tracked};
use hexforge_core::game::{Piles, Position};
use hexforge_core::tile::InstantEffect;
use hexforge_core::{
    AbilityHooks, Action, BattleCause, Catalog, Cell, Dir, Event, Game, GameResult, Hex, Play,
    PlayChecker, Seat, Target, TileRef, Turn,
};
use hexforge_log::Names;
use std::sync::Arc;

/// Runs a scenario with a `[game]` table.
pub(crate) fn run_game(
    s: &Scenario,
    start: &GameStart,
    catalog: &Catalog,
    hooks: &mut dyn AbilityHooks,
) -> Report {
    let mut report = Report::default();
    let position = Position {
        setup: s.setup.clone(),
        piles: start
            .armies
            .iter()
            .zip(&start.piles)
            .map(|(army, [deck, hand, discard, reserve])| Piles {
                army: army.clone(),
                deck: deck.clone(),
                hand: hand.clone(),
                discard: discard.clone(),
                reserve: reserve.clone(),
            })
            .collect(),
        next: start.next,
        turn_number: start.turn,
        last_turns: start.last_turns.clone(),
        seed: start.seed,
        marks: s.marks.clone(),
        links: s.links.clone(),
    };
    let mut events = Vec::new();
    let game = match Game::from_position(
        position,
        Arc::new(catalog.clone()),
        Arc::new(s.rules.clone()),
        &mut *hooks,
        &mut events,
    ) {
        Ok(g) => g,
        Err(e) => {
            refused(
                &mut report,
                s,
                &format!("the game of `[game]` (line {}): {e}", start.line),
            );
            return report;
        }
    };
    let tracked = tracked(s, game.field());
    let by_cell = labels(&tracked);
    let names = Names::new(
        game.field(),
        game.context(),
        |c| by_cell[c.index()].clone(),
        &s.player_ids,
    );
    let mut run = GameRunner {
        s,
        game,
        hooks,
        tracked,
        names,
        used: vec![false; s.choices.len()],
        defaults: Vec::new(),
        log: Vec::new(),
        battles: Vec::new(),
    };
    run.record(&events, None);
    let total = s.steps.len();
    report
        .frames
        .push(Frame::after(0, total, run.game.field(), run.log.len()));
    for (i, step) in s.steps.iter().enumerate() {
        if let Err(message) = run.step(step) {
            report.log = run.log;
            refused(&mut report, s, &message);
            return report;
        }
        report
            .frames
            .push(Frame::after(i + 1, total, run.game.field(), run.log.len()));
    }
    report.log = run.log;
    report.defaults = run.defaults;
    unused_choices(&mut report, s, &run.used);
    let game = &run.game;
    check(&mut report, s, game.field(), game.context(), &run.tracked);
    expect_game(&mut report, s, game, &run.battles);
    report
}

/// The action of a step, or the play it is worked out from once the turn is checked (it reads
/// the board).
enum Pending<'s> {
    /// The action, as the step gives it.
    Ready(Action),
    /// A play step, with the instant tile it names.
    Play(&'s PlayStep, Option<TileRef>),
}

/// The state of a game scenario between its steps.
struct GameRunner<'a> {
    hooks: &'a mut dyn AbilityHooks,
    s: &'a Scenario,
    game: Game,
    tracked: Vec<Tracked>,
    names: Names,
    used: Vec<bool>,
    defaults: Vec<String>,
    log: Vec<String>,
    /// The causes of the battles fought, as `expect.battles` names them.
    battles: Vec<&'static str>,
}

impl GameRunner<'_> {
    /// Plays one step as an action of its player; an error is the message of a refused step.
    fn step(&mut self, step: &Step) -> Result<(), String> {
        let mut label = None;
        let (by, line, what, action) = match step {
            Step::Place {
                by,
                tile,
                label: l,
                hex,
                facing,
                line,
            } => {
                label = Some(l.clone());
                let place = Action::Place {
                    tile: *tile,
                    hex: *hex,
                    facing: *facing,
                };
                (*by, *line, "place".to_string(), Pending::Ready(place))
            }
            Step::Discard { by, tile, line } => (
                *by,
                *line,
                "discard".to_string(),
                Pending::Ready(Action::Discard { tile: *tile }),
            ),
            Step::Redraw { by, line } => (
                *by,
                *line,
                "redraw".to_string(),
                Pending::Ready(Action::Redraw),
            ),
            Step::EndTurn { by, line } => (
                *by,
                *line,
                "end_turn".to_string(),
                Pending::Ready(Action::EndTurn),
            ),
            Step::Rule {
                by,
                rule,
                action,
                at,
                facing,
                tile,
                label: l,
                name,
                line,
            } => {
                label = l.clone();
                let rule = Action::Rule {
                    rule: *rule,
                    action: *action,
                    target: *at,
                    facing: *facing,
                    tile: *tile,
                };
                (*by, *line, name.clone(), Pending::Ready(rule))
            }
            Step::Play {
                by,
                play,
                name,
                tile,
                line,
            } => (*by, *line, name.clone(), Pending::Play(play, *tile)),
            // Parsing makes the `battle` step of a game a Battle tile played by its `by`.
            Step::Battle => unreachable!("a battle step of a game without `by`"),
        };
        let fail = |msg: String| format!("{what} (line {line}): {msg}");
        match self.game.current() {
            None => return Err(fail("the game is over".into())),
            Some(p) if p != by => {
                return Err(fail(format!(
                    "it is {}'s turn, not {}'s",
                    self.s.player_ids[p.index()],
                    self.s.player_ids[by.index()]
                )));
            }
            Some(_) => {}
        }
        let (action, push_to) = match action {
            Pending::Ready(action) => (action, None),
            Pending::Play(play, tile) => self.play(by, play, tile).map_err(fail)?,
        };
        let by_cell = labels(&self.tracked);
        let mut decider = ScenarioDecider {
            choices: &self.s.choices,
            used: &mut self.used,
            labels: &by_cell,
            defaults: &mut self.defaults,
            push_to,
        };
        let mut events = Vec::new();
        self.game
            .act(&action, &mut *self.hooks, &mut decider, &mut events)
            .map_err(|e| fail(e.to_string()))?;
        self.record(&events, label.as_deref());
        Ok(())
    }

    /// The action of a play step by `by`, with where a push sends the pushed unit (the owner's
    /// pick); an error is the reason it is refused.
    fn play(
        &self,
        by: Seat,
        play: &PlayStep,
        tile: Option<TileRef>,
    ) -> Result<(Action, Option<Cell>), String> {
        if let PlayStep::Scripted { .. } = play {
            let target = scripted_target(play, |l| self.hex_of(l))?;
            let instant = Action::Instant {
                tile: tile.ok_or_else(|| "no such instant".to_string())?,
                target: target.map_or(Target::None, Target::Hex),
            };
            return Ok((instant, None));
        }
        let core = play_of(play, |l| self.hex_of(l))?;
        let mut push_to = None;
        if let (PlayStep::Push { .. }, Some(Play::Push { pusher, target, to })) = (play, core) {
            // The owner's pick, checked as the sandbox checks it (R5.3.2).
            PlayChecker::new(self.game.field(), self.game.context())
                .check(&Turn::new(by), &Play::Push { pusher, target, to })
                .map_err(|e| e.reason.to_string())?;
            push_to = self.game.field().shape().cell(to);
        }
        Ok((self.action(by, play, core, tile)?, push_to))
    }

    /// The engine action of a play step: Mobility, or an instant from the player's hand.
    fn action(
        &self,
        by: Seat,
        play: &PlayStep,
        core: Option<Play>,
        named: Option<TileRef>,
    ) -> Result<Action, String> {
        let instant = |effect: fn(&InstantEffect) -> bool| -> Result<TileRef, String> {
            if let Some(t) = named {
                return Ok(t);
            }
            let cat = self.game.catalog();
            self.game
                .hand(by)
                .iter()
                .copied()
                .find(|t| cat.get(*t).instant.as_ref().is_some_and(effect))
                .ok_or_else(|| format!("{} holds no such instant", self.s.player_ids[by.index()]))
        };
        Ok(match (play, core) {
            (PlayStep::Battle, _) | (_, None) => Action::Instant {
                tile: instant(|e| matches!(e, InstantEffect::Battle))?,
                target: Target::None,
            },
            (
                _,
                Some(Play::Move {
                    unit,
                    to,
                    facing,
                    instant: is_instant,
                }),
            ) => {
                let facing = facing
                    .or_else(|| self.game.field().at_hex(unit).map(|p| p.facing))
                    .unwrap_or(Dir::N);
                if is_instant {
                    Action::Instant {
                        tile: instant(|e| matches!(e, InstantEffect::Move))?,
                        target: Target::Move { unit, to, facing },
                    }
                } else {
                    Action::Move { unit, to, facing }
                }
            }
            (_, Some(Play::Push { pusher, target, .. })) => Action::Instant {
                tile: instant(|e| matches!(e, InstantEffect::Push))?,
                target: Target::Push { pusher, target },
            },
            (_, Some(Play::Wound { target, .. })) => Action::Instant {
                tile: instant(|e| matches!(e, InstantEffect::Wound { .. }))?,
                target: Target::Unit(target),
            },
            (_, Some(Play::DestroyNearHq { target })) => Action::Instant {
                tile: instant(|e| matches!(e, InstantEffect::DestroyNearHq))?,
                target: Target::Unit(target),
            },
            (_, Some(Play::Area { at, .. })) => Action::Instant {
                tile: instant(|e| matches!(e, InstantEffect::Area { .. }))?,
                target: Target::Hex(at),
            },
        })
    }

    fn hex_of(&self, label: &str) -> Result<Hex, String> {
        let t = self
            .tracked
            .iter()
            .find(|t| t.label == label)
            .ok_or_else(|| format!("no tile `{label}`"))?;
        let field = self.game.field();
        t.cell
            .filter(|c| field.at(*c).map(|p| (p.tile, p.owner)) == t.tile)
            .map(|c| field.shape().hex(c))
            .ok_or_else(|| format!("`{label}` is not on the board any more"))
    }

    /// Follows labelled tiles through the events, logs them and notes the battles.
    fn record(&mut self, events: &[Event], placed_label: Option<&str>) {
        for e in events {
            match *e {
                Event::Placed {
                    cell, tile, owner, ..
                } => {
                    let label = placed_label.unwrap_or_default();
                    if let Some(t) = self.tracked.iter_mut().find(|t| t.label == label) {
                        t.cell = Some(cell);
                        t.tile = Some((tile, owner));
                    }
                    self.names.follow(e);
                    self.names
                        .placed(self.game.field(), self.game.context(), cell, label);
                }
                Event::Fielded {
                    cell, tile, owner, ..
                } => {
                    // The first tile a rule action puts down takes the step's label.
                    if let Some(label) = placed_label
                        && let Some(t) = self
                            .tracked
                            .iter_mut()
                            .find(|t| t.label == label && t.cell.is_none())
                    {
                        t.cell = Some(cell);
                        t.tile = Some((tile, owner));
                        self.names.follow(e);
                        self.names
                            .placed(self.game.field(), self.game.context(), cell, label);
                    }
                }
                Event::Moved { from, to, .. } => {
                    if let Some(t) = self.tracked.iter_mut().find(|t| t.cell == Some(from)) {
                        t.cell = Some(to);
                    }
                }
                Event::BattleCalled { cause } => self.battles.push(cause_name(cause)),
                _ => {}
            }
            self.log.extend(self.names.describe(e));
            if !matches!(e, Event::Placed { .. }) {
                self.names.follow(e);
            }
        }
    }
}

/// The word `expect.battles` uses for a battle's cause.
fn cause_name(c: BattleCause) -> &'static str {
    match c {
        BattleCause::Instant { .. } => "instant",
        BattleCause::BoardFull => "board_full",
        BattleCause::StillFull => "still_full",
        BattleCause::Final => "final",
        BattleCause::TieBreak => "tie_break",
        BattleCause::Rule { .. } => "rule",
    }
}

/// The expectations only a game has: winner, hands, piles, turn, battles, last tile.
fn expect_game(report: &mut Report, s: &Scenario, game: &Game, battles: &[&str]) {
    let fail = &mut report.failures;
    let e = &s.expect;
    let cat = game.catalog();
    if let Some(w) = &e.winner {
        let got = match game.result() {
            None => "nobody yet (the game goes on)".to_string(),
            Some(GameResult::Draw { .. }) => "draw".to_string(),
            Some(GameResult::Won { team }) => winners(s, game.field(), team, w),
            Some(GameResult::Shared { teams }) if w.contains(" and ") => {
                // Every player who shares the victory, in seat order.
                let f = game.field();
                let who: Vec<&str> = f
                    .players()
                    .filter(|p| teams & 1 << f.team(*p) != 0)
                    .map(|p| s.player_ids[p.index()].as_str())
                    .collect();
                who.join(" and ")
            }
            Some(GameResult::Shared { teams }) => {
                let who: Vec<String> = (0..8)
                    .filter(|t| teams & 1 << t != 0)
                    .map(|t| winners(s, game.field(), t, w))
                    .collect();
                if who.iter().any(|x| x == w) {
                    w.clone()
                } else {
                    who.join(" and ")
                }
            }
        };
        if got != *w {
            fail.push(format!("winner: expected {w}, found {got}"));
        }
    }
    for (p, id, tiles) in &e.hands {
        let expected: Vec<String> = tiles.iter().map(|t| cat.get(*t).full_id()).collect();
        let found: Vec<String> = game
            .hand(*p)
            .iter()
            .map(|t| cat.get(*t).full_id())
            .collect();
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        compare_sets(fail, &format!("hand of {id}"), &expected, &found);
    }
    for (p, id, tiles) in &e.reserves {
        let expected: Vec<String> = tiles.iter().map(|t| cat.get(*t).full_id()).collect();
        let found: Vec<String> = game
            .reserve(*p)
            .iter()
            .map(|t| cat.get(*t).full_id())
            .collect();
        let found: Vec<&str> = found.iter().map(String::as_str).collect();
        compare_sets(fail, &format!("reserve of {id}"), &expected, &found);
    }
    for (p, id, n) in &e.decks {
        if game.deck_len(*p) != *n {
            fail.push(format!(
                "draw pile of {id}: expected {n} tiles, found {}",
                game.deck_len(*p)
            ));
        }
    }
    for (p, id, n) in &e.discards {
        let got = game.discard_pile(*p).len();
        if got != *n {
            fail.push(format!(
                "discard pile of {id}: expected {n} tiles, found {got}"
            ));
        }
    }
    if let Some(t) = &e.turn {
        let got = game
            .current()
            .map_or("over".to_string(), |p| s.player_ids[p.index()].clone());
        if got != *t {
            fail.push(format!("turn: expected {t}, found {got}"));
        }
    }
    if let Some(b) = &e.battles
        && b.iter().map(String::as_str).ne(battles.iter().copied())
    {
        fail.push(format!(
            "battles: expected [{}], found [{}]",
            b.join(", "),
            battles.join(", ")
        ));
    }
    if let Some(l) = e.last_tile_drawn
        && l != game.last_tile_drawn()
    {
        fail.push(format!(
            "last tile drawn: expected {l}, found {}",
            game.last_tile_drawn()
        ));
    }
}

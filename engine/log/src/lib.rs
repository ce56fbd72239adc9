//! Readable logs of battles and games: one line per event, tiles named by their scenario labels
//! (or by their tile ids when a game places them), players by name. Scenario reports, the
//! `hexforge` CLI and the editor print events through it.

#![warn(missing_docs)]

use hexforge_core::battle::Context;
use hexforge_core::{
    BattleCause, Battlefield, Cell, DrawReason, Event, GameResult, MAX_CELLS, Seat,
};

/// Names the tiles of a battlefield by label and tile id, and follows them as they move; removed
/// tiles keep their names for the rest of the log.
#[derive(Clone, Debug)]
pub struct Names {
    /// Label and `army/tile` of the tile on each cell.
    names: Vec<Option<(String, String)>>,
    hexes: Vec<hexforge_core::Hex>,
    players: Vec<String>,
    /// Per tile definition: its id, `army/tile` and display name.
    tiles: Vec<(String, String, String)>,
    /// Each player's team, to name the winners.
    teams: Vec<u8>,
    /// Per game rule of the catalog, the names of its actions, for rule actions taken.
    rule_actions: Vec<Vec<String>>,
    /// The catalog's game rules by name, for the rule that decides a game.
    rules: Vec<String>,
}

impl Names {
    /// Names every tile on the board, e.g. `m_net (moloch/netter) [0, 1]`.
    pub fn new(
        field: &Battlefield,
        ctx: Context<'_>,
        label_of: impl Fn(Cell) -> Option<String>,
        players: &[String],
    ) -> Self {
        let mut names = vec![None; MAX_CELLS];
        for (c, p) in field.tiles() {
            let def = ctx.catalog.get(p.tile);
            let label = label_of(c).unwrap_or_else(|| def.id.clone());
            names[c.index()] = Some((label, def.full_id()));
        }
        let tiles = (0..ctx.catalog.len())
            .filter_map(|i| ctx.catalog.tile_ref(i))
            .map(|r| {
                let d = ctx.catalog.get(r);
                (d.id.clone(), d.full_id(), d.name.clone())
            })
            .collect();
        Names {
            names,
            hexes: field.shape().hexes().to_vec(),
            players: players.to_vec(),
            tiles,
            teams: field.players().map(|p| field.team(p)).collect(),
            rule_actions: ctx
                .catalog
                .game_rules()
                .iter()
                .map(|r| r.actions.iter().map(|a| a.name.clone()).collect())
                .collect(),
            rules: ctx
                .catalog
                .game_rules()
                .iter()
                .map(|r| r.name.clone())
                .collect(),
        }
    }

    fn player(&self, p: Seat) -> String {
        self.players
            .get(p.index())
            .cloned()
            .unwrap_or_else(|| p.to_string())
    }

    fn tile(&self, t: hexforge_core::TileRef) -> &str {
        self.tiles.get(t.index()).map_or("?", |x| x.2.as_str())
    }

    /// The winners of a result, by player name.
    pub fn result(&self, r: GameResult) -> String {
        match r {
            GameResult::Won { team } => {
                let who: Vec<String> = (0..self.teams.len())
                    .filter(|i| self.teams[*i] == team)
                    .map(|i| self.player(Seat::new(i as u8)))
                    .collect();
                format!("{} won", who.join(" and "))
            }
            GameResult::Shared { teams } => {
                let who: Vec<String> = (0..self.teams.len())
                    .filter(|i| teams & 1 << self.teams[*i] != 0)
                    .map(|i| self.player(Seat::new(i as u8)))
                    .collect();
                format!("{} share the victory", who.join(" and "))
            }
            GameResult::Draw { reason } => format!(
                "draw ({})",
                match reason {
                    DrawReason::AllHqsDestroyed => "every side lost its HQ in the same battle",
                    DrawReason::EqualHp => "equal HQ HP",
                    DrawReason::BattleLoop => "a full-board battle changed nothing",
                    DrawReason::Rule => "a game rule declared it",
                }
            ),
        }
    }

    /// Names a tile placed after the names were taken.
    pub fn placed(&mut self, field: &Battlefield, ctx: Context<'_>, c: Cell, label: &str) {
        if let Some(p) = field.at(c) {
            self.names[c.index()] = Some((label.to_string(), ctx.catalog.get(p.tile).full_id()));
        }
    }

    /// Keeps names on their tiles when an event moves one, and names tiles a game places by
    /// their tile id.
    pub fn follow(&mut self, e: &Event) {
        match *e {
            Event::Moved { from, to, .. } if from != to => {
                self.names[to.index()] = self.names[from.index()].take();
            }
            Event::Placed { cell, tile, .. }
            | Event::Fielded { cell, tile, .. }
            | Event::Joined { cell, tile, .. } => {
                if let Some((id, full, _)) = self.tiles.get(tile.index()) {
                    self.names[cell.index()] = Some((id.clone(), full.clone()));
                }
            }
            _ => {}
        }
    }

    /// What a marker is on, in words: a tile by its name, a hex, a player.
    pub fn mark_place(&self, on: hexforge_core::marker::MarkOn) -> String {
        match on {
            hexforge_core::marker::MarkOn::Tile(c) => self.name(c),
            hexforge_core::marker::MarkOn::Hex(c) => format!("the hex {}", self.hexes[c.index()]),
            hexforge_core::marker::MarkOn::Player(p) => self.player(p),
        }
    }

    /// The name of the tile on `c`, with the hex it stands on.
    pub fn name(&self, c: Cell) -> String {
        match &self.names[c.index()] {
            Some((label, id)) => format!("{label} ({id}) {}", self.hexes[c.index()]),
            None => "an empty hex".to_string(),
        }
    }

    /// One line for an event, or `None` for events that only mark structure.
    pub fn describe(&self, e: &Event) -> Option<String> {
        Some(match *e {
            Event::Placed { cell, facing, .. } => {
                format!("{} is placed facing {}", self.name(cell), facing.name())
            }
            Event::Moved { from, to, facing } => {
                if from == to {
                    format!("{} turns to face {}", self.name(from), facing.name())
                } else {
                    format!(
                        "{} moves to {} facing {}",
                        self.name(from),
                        self.hexes[to.index()],
                        facing.name()
                    )
                }
            }
            Event::Struck { target, wounds } => format!(
                "{} is struck for {wounds} wound{}",
                self.name(target),
                if wounds == 1 { "" } else { "s" }
            ),
            Event::BattleStarted { first_phase } => {
                format!("Battle: initiative phases {first_phase} down to 0")
            }
            Event::PhaseStarted { phase } => format!("Phase {phase}"),
            Event::InitiativeChanged { cell, by, highest } => format!(
                "  {} has initiative {highest} for this battle ({by:+} to each value)",
                self.name(cell)
            ),
            Event::Netted { cell } => format!("  {} is netted", self.name(cell)),
            Event::Freed { cell } => format!("  {} is no longer netted", self.name(cell)),
            Event::Acts { cell, .. } => format!("  {} acts", self.name(cell)),
            Event::Exploded { cell } => {
                format!("  {} explodes instead of attacking", self.name(cell))
            }
            Event::Converted { unit, edge, by, to } => {
                format!(
                    "  {} turns the attack through edge {edge} of {} into {}",
                    self.name(by),
                    self.name(unit),
                    to.name()
                )
            }
            Event::Attack {
                from,
                edge,
                kind,
                target,
                strength,
                armored,
                wounds,
            } => {
                let via = edge
                    .map(|e| format!(" through edge {e}"))
                    .unwrap_or_default();
                let armor = if armored { ", armor -1" } else { "" };
                format!(
                    "  {} {} {strength}{via} -> {}: {wounds} wound{}{armor}",
                    self.name(from),
                    kind.name(),
                    self.name(target),
                    if wounds == 1 { "" } else { "s" }
                )
            }
            Event::Absorbed {
                medic,
                target,
                attacker,
                wounds,
            } => format!(
                "  {} absorbs {wounds} wound{} of {} on {} and is discarded",
                self.name(medic),
                if wounds == 1 { "" } else { "s" },
                attacker.map_or("the instant".to_string(), |a| self.name(a)),
                self.name(target)
            ),
            Event::Wounded {
                cell,
                added,
                total,
                destroyed,
            } => format!(
                "  {} takes {added}, {total} wound{} in all{}",
                self.name(cell),
                if total == 1 { "" } else { "s" },
                if destroyed { ": destroyed" } else { "" }
            ),
            Event::Healed {
                cell,
                removed,
                total,
            } => format!(
                "  {} heals {removed}, {total} wound{} left",
                self.name(cell),
                if total == 1 { "" } else { "s" }
            ),
            Event::Marked { mark } => format!(
                "  {} is marked `{}`{} {}",
                self.mark_place(mark.on),
                mark.name,
                if mark.value != 0 {
                    format!(" ({})", mark.value)
                } else {
                    String::new()
                },
                mark.lasts.describe()
            ),
            Event::MarkerCounted { mark } => format!(
                "  `{}` on {}: {}",
                mark.name,
                self.mark_place(mark.on),
                match mark.lasts {
                    hexforge_core::marker::Lasts::Turns(1) => "1 turn left".to_string(),
                    hexforge_core::marker::Lasts::Turns(n) => format!("{n} turns left"),
                    other => other.describe(),
                }
            ),
            Event::Unmarked { on, name } => {
                format!("  `{name}` comes off {}", self.mark_place(on))
            }
            Event::Deflected {
                cell,
                to: Some(to),
                wounds,
            } => format!(
                "  {} turns {wounds} wound{} onto {}",
                self.name(cell),
                if wounds == 1 { "" } else { "s" },
                self.name(to)
            ),
            Event::Deflected {
                cell,
                to: None,
                wounds,
            } => format!(
                "  {} stops {wounds} wound{}",
                self.name(cell),
                if wounds == 1 { "" } else { "s" }
            ),
            Event::Removed { cell, .. } => format!("  {} leaves the board", self.name(cell)),
            Event::Linked { link } => {
                let hexes: Vec<String> = (0..self.hexes.len())
                    .filter(|i| link.segments & (1u64 << i) != 0)
                    .map(|i| self.hexes[i].to_string())
                    .collect();
                format!(
                    "  {} {} {} stands on {} ({} lost, {})",
                    self.player(link.owner),
                    link.kind,
                    link.id,
                    hexes.join(" "),
                    link.loss().name(),
                    if link.shared() {
                        "shared"
                    } else {
                        "each tile alone"
                    }
                )
            }
            Event::Unlinked { id } => format!("  linked unit {id} comes apart"),
            Event::Joined {
                cell, tile, facing, ..
            } => format!(
                "  {} goes down with it on {}, facing {}",
                self.tile(tile),
                self.hexes[cell.index()],
                facing.name()
            ),
            Event::Fielded {
                cell,
                tile,
                owner,
                facing,
            } => format!(
                "  {} puts {} from the reserve on {}, facing {}",
                self.player(owner),
                self.tile(tile),
                self.hexes[cell.index()],
                facing.name()
            ),
            Event::Lifted { cell, owner, .. } => format!(
                "  {} goes back to the reserve of {}",
                self.name(cell),
                self.player(owner)
            ),
            Event::Granted { player, tile } => format!(
                "{} receives {} in the reserve",
                self.player(player),
                self.tile(tile)
            ),
            Event::SetAside { player, tile } => format!(
                "{} sets {} aside in the reserve",
                self.player(player),
                self.tile(tile)
            ),
            Event::HqDamaged { player, amount, hp } => {
                format!("  HQ of {} loses {amount}: {hp} HP", self.player(player))
            }
            Event::HqHealed { player, amount, hp } => {
                format!("  HQ of {} heals {amount}: {hp} HP", self.player(player))
            }
            Event::PhaseEnded { .. } => return None,
            Event::BattleEnded => "Battle over".to_string(),
            Event::TurnStarted { player, number } => {
                format!("Turn {number}: {}", self.player(player))
            }
            Event::Drew { player, tile } => {
                format!("  {} draws {}", self.player(player), self.tile(tile))
            }
            Event::LastTileDrawn { player } => format!(
                "  {} has drawn their last tile: no more Battle tiles; every player plays one last turn, then the Final Battle",
                self.player(player)
            ),
            Event::TurnLimit { turns } => format!(
                "  {turns} turns played, the most a game plays: no more Battle tiles; every player plays one last turn, then the Final Battle"
            ),
            Event::BadDraw { player } => format!(
                "  {} holds only instants and redraws (bad draw)",
                self.player(player)
            ),
            Event::Discarded { player, tile } => {
                format!("  {} discards {}", self.player(player), self.tile(tile))
            }
            Event::InstantPlayed { player, tile, at } => match at {
                Some(c) => format!(
                    "  {} plays {} on {}",
                    self.player(player),
                    self.tile(tile),
                    self.hexes[c.index()]
                ),
                None => format!("  {} plays {}", self.player(player), self.tile(tile)),
            },
            Event::RuleAction {
                player,
                rule,
                action,
                at,
                facing,
                tile,
            } => {
                let name = self
                    .rule_actions
                    .get(usize::from(rule))
                    .and_then(|a| a.get(usize::from(action)))
                    .map_or("a rule action", String::as_str);
                match at {
                    Some(c) => format!(
                        "  {} takes {name} on {}{}",
                        self.player(player),
                        self.hexes[c.index()],
                        facing.map_or(String::new(), |f| format!(" facing {}", f.name()))
                    ),
                    None => match tile {
                        Some(t) => {
                            format!("  {} takes {name} on {}", self.player(player), self.tile(t))
                        }
                        None => format!("  {} takes {name}", self.player(player)),
                    },
                }
            }
            Event::TurnEnded { .. } => return None,
            Event::BattleCalled { cause } => match cause {
                BattleCause::Instant { player } => {
                    format!("Battle tile of {}", self.player(player))
                }
                BattleCause::BoardFull => "The board is full".to_string(),
                BattleCause::StillFull => "The board is still full".to_string(),
                BattleCause::Final => "Final Battle".to_string(),
                BattleCause::TieBreak => "Tie-break battle".to_string(),
                BattleCause::Rule { player } => {
                    format!(
                        "Battle asked by a game rule's action of {}",
                        self.player(player)
                    )
                }
            },
            Event::TieBreak => {
                "Equal HP: every tied player plays one more turn, then one more battle".to_string()
            }
            Event::OutOfRace { player } => format!(
                "{} would lose the tie: out of the race, their army stays on the board",
                self.player(player)
            ),
            Event::GameEnded { result, by_rule } => {
                match by_rule.and_then(|r| self.rules.get(usize::from(r))) {
                    Some(rule) => format!(
                        "Game over (the rule `{rule}` decides): {}",
                        self.result(result)
                    ),
                    None => format!("Game over: {}", self.result(result)),
                }
            }
        })
    }
}

/// A game's log as `hexforge match` and `hexforge replay` print it: one line per event worth
/// telling (events of a turn or a battle indented under its heading), the HQ HP after each
/// battle, and the result line; players are named by army, numbered when two play the same one.
#[derive(Clone, Debug)]
pub struct GameLog {
    names: Names,
    hp: Vec<i32>,
    players: Vec<String>,
    reader: Reader,
    /// The player markers game rules declare secret (`secret`).
    secret_markers: Vec<hexforge_core::marker::MarkerName>,
    /// Per game rule, per action, whether it is secret (`secret = true`).
    secret_actions: Vec<Vec<bool>>,
}

/// Who reads a log or a view of a game, and so whose hidden information it may show: a player's
/// draws, the tiles set aside or handed into their reserve, the tiles their secret rule actions
/// are taken on, and the values of secret player markers (docs/RULESETS.md, "Secrets").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reader {
    /// Everything: replays, match logs, scenario reports, the sandbox, a table of bots only.
    #[default]
    Everyone,
    /// One player: their own hidden information and what is public.
    Player(Seat),
    /// Several players at one screen: only what is public.
    Table,
}

impl Reader {
    /// Whether the reader may see what is hidden from everyone but `p`.
    pub fn sees(self, p: Seat) -> bool {
        match self {
            Reader::Everyone => true,
            Reader::Player(s) => s == p,
            Reader::Table => false,
        }
    }

    /// Whether `mark` carries a value the reader may not see: a secret player marker
    /// (`secret`) on another player.
    pub fn hides(
        self,
        mark: &hexforge_core::marker::Mark,
        catalog: &hexforge_core::Catalog,
    ) -> bool {
        matches!(mark.on, hexforge_core::marker::MarkOn::Player(p) if !self.sees(p))
            && catalog.secret_marker(mark.name)
    }

    /// The board as the reader may see it: every marker it [`hides`](Self::hides) shown with
    /// no value (`None`: nothing to hide, draw `field` itself).
    pub fn field(
        self,
        field: &Battlefield,
        catalog: &hexforge_core::Catalog,
    ) -> Option<Battlefield> {
        let hidden: Vec<_> = field
            .marks()
            .iter()
            .filter(|m| self.hides(m, catalog))
            .copied()
            .collect();
        if hidden.is_empty() {
            return None;
        }
        let mut seen = field.clone();
        for mark in hidden {
            seen.apply(&Event::Marked {
                mark: hexforge_core::marker::Mark { value: 0, ..mark },
            });
        }
        Some(seen)
    }

    /// An action in words as the reader may read it: the tile a secret rule action is taken
    /// on is "a tile" unless the reader sees `actor`.
    pub fn describe_action(
        self,
        action: &hexforge_core::Action,
        actor: Seat,
        catalog: &hexforge_core::Catalog,
    ) -> String {
        match *action {
            hexforge_core::Action::Rule {
                rule,
                action: a,
                target: None,
                tile: Some(_),
                ..
            } if !self.sees(actor) && catalog.secret_action(usize::from(rule), usize::from(a)) => {
                let name = catalog
                    .game_rules()
                    .get(usize::from(rule))
                    .and_then(|r| r.actions.get(usize::from(a)))
                    .map_or("a rule action", |x| x.name.as_str());
                format!("{name} on a tile")
            }
            _ => action.describe(catalog),
        }
    }
}

impl GameLog {
    /// The log of `game` from where it stands, its seats playing `armies`.
    pub fn new(game: &hexforge_core::Game, armies: &[&str]) -> Self {
        let players = player_names(armies);
        let catalog = game.catalog();
        GameLog {
            reader: Reader::Everyone,
            secret_markers: catalog
                .game_rules()
                .iter()
                .flat_map(|r| r.secret.iter().copied())
                .collect(),
            secret_actions: catalog
                .game_rules()
                .iter()
                .map(|r| r.actions.iter().map(|a| a.secret).collect())
                .collect(),
            names: Names::new(game.field(), game.context(), |_| None, &players),
            hp: game
                .field()
                .players()
                .map(|p| game.field().hq_hp(p))
                .collect(),
            players,
        }
    }

    /// The log as `reader` may read it (every event is told to everyone unless set).
    pub fn for_reader(mut self, reader: Reader) -> Self {
        self.reader = reader;
        self
    }

    /// The line of an event that hides something from the reader, told without it: another
    /// player's draw, a tile set aside or handed into their reserve, the tile of their secret
    /// rule action, the value of a secret marker on them. `None` when nothing is hidden.
    fn hidden_line(&self, e: &Event) -> Option<String> {
        let player = |p: Seat| self.names.player(p);
        match *e {
            Event::Drew { player: p, .. } if !self.reader.sees(p) => {
                Some(format!("  {} draws a tile", player(p)))
            }
            Event::SetAside { player: p, .. } if !self.reader.sees(p) => {
                Some(format!("{} sets a tile aside in the reserve", player(p)))
            }
            Event::Granted { player: p, .. } if !self.reader.sees(p) => {
                Some(format!("{} receives a tile in the reserve", player(p)))
            }
            Event::RuleAction {
                player: p,
                rule,
                action,
                at: None,
                tile: Some(_),
                ..
            } if !self.reader.sees(p)
                && self
                    .secret_actions
                    .get(usize::from(rule))
                    .and_then(|a| a.get(usize::from(action)))
                    .is_some_and(|s| *s) =>
            {
                let name = self
                    .names
                    .rule_actions
                    .get(usize::from(rule))
                    .and_then(|a| a.get(usize::from(action)))
                    .map_or("a rule action", String::as_str);
                Some(format!("  {} takes {name} on a tile", player(p)))
            }
            Event::Marked { mark } => match mark.on {
                hexforge_core::marker::MarkOn::Player(p)
                    if !self.reader.sees(p) && self.secret_markers.contains(&mark.name) =>
                {
                    Some(format!(
                        "  {} is marked `{}` (its value is secret) {}",
                        player(p),
                        mark.name,
                        mark.lasts.describe()
                    ))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// The players' names, in seat order.
    pub fn players(&self) -> &[String] {
        &self.players
    }

    /// Follows one event without telling it (the names and HQ HP stay up to date).
    pub fn follow(&mut self, e: &Event) {
        if let Event::HqDamaged { player, hp, .. } | Event::HqHealed { player, hp, .. } = *e
            && let Some(h) = self.hp.get_mut(player.index())
        {
            *h = hp;
        }
        self.names.follow(e);
    }

    /// Follows one event and adds the lines it tells to `lines` (none, one, or two when a
    /// battle ends).
    pub fn tell(&mut self, e: &Event, lines: &mut Vec<String>) {
        if let Event::HqDamaged { player, hp, .. } | Event::HqHealed { player, hp, .. } = *e
            && let Some(h) = self.hp.get_mut(player.index())
        {
            *h = hp;
        }
        // A placed tile is named before its line; a moved one after it.
        let placed = matches!(e, Event::Placed { .. });
        if placed {
            self.names.follow(e);
        }
        if let Some(line) = self.hidden_line(e).or_else(|| self.names.describe(e)) {
            let indent = matches!(
                e,
                Event::Placed { .. } | Event::Moved { .. } | Event::Struck { .. }
            );
            lines.push(format!("{}{line}", if indent { "  " } else { "" }));
        }
        if !placed {
            self.names.follow(e);
        }
        if let Event::BattleEnded = e {
            lines.push(format!("  HQ: {}", self.hq_line()));
        }
    }

    /// Each player's HQ HP as the log last told it, e.g. `moloch 18, borgo 20`.
    pub fn hq_line(&self) -> String {
        self.players
            .iter()
            .zip(&self.hp)
            .map(|(n, h)| format!("{n} {h}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The result line of `game`, with the seed it was played with.
    pub fn result_line(&self, game: &hexforge_core::Game, seed: u64) -> String {
        let result = game
            .result()
            .map_or("unfinished".to_string(), |r| self.names.result(r));
        format!(
            "Result: {result}; {} turns, {} battles; HQ {}; seed {seed}",
            game.turn_number(),
            game.battles(),
            self.hq_line()
        )
    }
}

/// Player names for logs: the army id, numbered when two players use the same army.
pub fn player_names(armies: &[&str]) -> Vec<String> {
    armies
        .iter()
        .enumerate()
        .map(|(i, a)| {
            if armies.iter().filter(|x| *x == a).count() > 1 {
                format!("{a}-{}", i + 1)
            } else {
                a.to_string()
            }
        })
        .collect()
}

/// A decision's question in words, as a person is asked it.
pub fn question_text(q: hexforge_core::Question) -> &'static str {
    use hexforge_core::Question;
    match q {
        Question::Explode => "explode, or attack as printed (R7.2.4)?",
        Question::Convert => "convert an attack of a connected unit (R7.4.3)?",
        Question::Absorb => "which attack does the Medic absorb (R4.8.3)?",
        Question::Save => "which wounded unit does the Medic save (R4.8.4)?",
        Question::Medic => "which Medic absorbs (R4.8.5)?",
        Question::PushTo => {
            "an enemy pushes this unit: where does it go? (R5.3.3: the owner of the pushed unit chooses)"
        }
        Question::Facing => "which way does your tile face as it comes down (R10.6.10)?",
    }
}

/// An option of a decision in words, tiles named with their hexes (`Save Medic on [0, 1]`).
pub fn choice_text(
    c: hexforge_core::Choice,
    field: &Battlefield,
    catalog: &hexforge_core::Catalog,
) -> String {
    use hexforge_core::Choice;
    let name = |cell| {
        let hex = field.shape().hex(cell);
        field.at(cell).map_or_else(
            || hex.to_string(),
            |p| format!("{} on {hex}", catalog.get(p.tile).name),
        )
    };
    match c {
        Choice::Attack => "Attack as printed".to_string(),
        Choice::Explode => "Explode".to_string(),
        Choice::NoConversion => "Convert nothing".to_string(),
        Choice::Convert { unit, edge } => {
            format!(
                "Convert the attack of {} (edge {})",
                name(unit),
                edge.index()
            )
        }
        Choice::Absorb { attacker } => format!("Absorb the attack of {}", name(attacker)),
        Choice::Save { unit } => format!("Save {}", name(unit)),
        Choice::Medic { medic } => format!("The Medic {}", name(medic)),
        Choice::To { cell } => format!("To {}", field.shape().hex(cell)),
        Choice::Facing { facing } => format!("Facing {facing} ({})", facing.index()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::game::LegalActions;
    use hexforge_core::{DefaultPolicy, Game, GameSetup, NoAbilities, SeatSetup};
    use std::path::Path;
    use std::sync::Arc;

    #[test]
    fn two_players_of_one_army_are_numbered() {
        assert_eq!(player_names(&["a", "b"]), ["a", "b"]);
        assert_eq!(player_names(&["a", "a", "b"]), ["a-1", "a-2", "b"]);
    }

    #[test]
    fn the_game_log_tells_each_battle_with_the_hq_hp_after_it() {
        let loaded =
            hexforge_content::load_mods(
                &[Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods")],
            );
        let armies = ["moloch", "moloch"];
        let mut game = Game::new(
            GameSetup {
                shape: hexforge_core::BoardShape::standard(),
                seats: SeatSetup::each_alone(&armies),
                seed: 3,
                marks: Vec::new(),
            },
            Arc::new(loaded.catalog.clone()),
            Arc::new(hexforge_core::Rules::preset(hexforge_core::Preset::V3)),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut log = GameLog::new(&game, &armies);
        let mut quiet = log.clone();
        let mut legal = LegalActions::new();
        let mut lines = Vec::new();
        let mut k = 0;
        while game.current().is_some() && !lines.iter().any(|l: &String| l.starts_with("  HQ: ")) {
            game.legal_actions(&mut legal);
            let action = legal.get(k % legal.len()).expect("a legal action");
            k += 7;
            let mut events: Vec<Event> = Vec::new();
            game.act(&action, &mut NoAbilities, &mut DefaultPolicy, &mut events)
                .unwrap_or_else(|e| panic!("{e}"));
            for e in &events {
                log.tell(e, &mut lines);
                quiet.follow(e);
            }
        }
        let at = lines
            .iter()
            .position(|l| l == "Battle over")
            .unwrap_or_else(|| panic!("no battle in {lines:#?}"));
        let hp: Vec<String> = game
            .field()
            .players()
            .map(|p| format!("moloch-{} {}", p.index() + 1, game.field().hq_hp(p)))
            .collect();
        assert_eq!(lines[at + 1], format!("  HQ: {}", hp.join(", ")));
        assert_eq!(quiet.hq_line(), log.hq_line());
        assert!(
            lines.iter().any(|l| l.starts_with("Turn 1: moloch-")),
            "{lines:#?}"
        );
    }

    /// A game of two Molochs whose catalog holds a rule with the secret marker `vault` and the
    /// secret action `stash`.
    fn secret_game() -> Game {
        use hexforge_core::marker::MarkerName;
        use hexforge_core::tile::{GameRule, RuleAction};
        let loaded = hexforge_content::load_mods(&[
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../mods/base")
        ]);
        let mut catalog = loaded.catalog.clone();
        catalog.set_game_rules(vec![GameRule {
            name: "vaults".into(),
            mod_id: "m".into(),
            points: hexforge_core::points::RulePoints::NONE,
            when: vec![(
                "never_declared".into(),
                hexforge_core::tile::ParamValue::Bool(true),
            )],
            actions: vec![RuleAction {
                name: "stash".into(),
                doc: String::new(),
                facing: false,
                stages: 0,
                marker: None,
                lacks: Vec::new(),
                turn: 0,
                cites: String::new(),
                secret: true,
                counts: Default::default(),
                declared: None,
            }],
            asked_when: Vec::new(),
            secret: vec![MarkerName::new("vault").expect("a name")],
            restrictions: Vec::new(),
        }]);
        Game::new(
            GameSetup {
                shape: hexforge_core::BoardShape::standard(),
                seats: SeatSetup::each_alone(&["moloch", "moloch"]),
                seed: 3,
                marks: Vec::new(),
            },
            Arc::new(catalog),
            Arc::new(hexforge_core::Rules::preset(hexforge_core::Preset::V3)),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn a_marker_counting_down_is_told_as_the_turns_left_not_as_a_new_marker() {
        use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
        let game = secret_game();
        let rally = |lasts| Mark {
            on: MarkOn::Player(Seat::new(0)),
            name: MarkerName::new("rally").expect("a name"),
            lasts,
            value: 1,
        };
        let mut log = GameLog::new(&game, &["moloch", "moloch"]);
        let mut lines = Vec::new();
        for e in [
            Event::Marked {
                mark: rally(Lasts::Turns(2)),
            },
            Event::MarkerCounted {
                mark: rally(Lasts::Turns(1)),
            },
        ] {
            log.tell(&e, &mut lines);
        }
        assert_eq!(
            lines,
            [
                "  moloch-1 is marked `rally` (1) for 2 turns",
                "  `rally` on moloch-1: 1 turn left",
            ]
        );
    }

    #[test]
    fn a_reader_is_told_only_what_they_may_see() {
        use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
        let game = secret_game();
        let netter = game.catalog().find("moloch/netter").expect("a tile");
        let (me, other) = (Seat::new(0), Seat::new(1));
        let vault = |p: Seat| Mark {
            on: MarkOn::Player(p),
            name: MarkerName::new("vault").expect("a name"),
            lasts: Lasts::Permanent,
            value: 7,
        };
        let events = [
            Event::Drew {
                player: other,
                tile: netter,
            },
            Event::Drew {
                player: me,
                tile: netter,
            },
            Event::SetAside {
                player: other,
                tile: netter,
            },
            Event::Granted {
                player: other,
                tile: netter,
            },
            Event::Marked { mark: vault(other) },
            Event::Marked { mark: vault(me) },
            Event::RuleAction {
                player: other,
                rule: 0,
                action: 0,
                at: None,
                facing: None,
                tile: Some(netter),
            },
        ];
        let told = |reader: Reader| {
            let mut log = GameLog::new(&game, &["moloch", "moloch"]).for_reader(reader);
            let mut lines = Vec::new();
            for e in &events {
                log.tell(e, &mut lines);
            }
            lines
        };
        assert_eq!(
            told(Reader::Player(me)),
            [
                "  moloch-2 draws a tile",
                "  moloch-1 draws Netter",
                "moloch-2 sets a tile aside in the reserve",
                "moloch-2 receives a tile in the reserve",
                "  moloch-2 is marked `vault` (its value is secret) permanently",
                "  moloch-1 is marked `vault` (7) permanently",
                "  moloch-2 takes stash on a tile",
            ]
        );
        let everyone = told(Reader::Everyone);
        assert_eq!(everyone[0], "  moloch-2 draws Netter");
        assert_eq!(everyone[6], "  moloch-2 takes stash on Netter");
        let table = told(Reader::Table);
        assert_eq!(table[1], "  moloch-1 draws a tile");
        // The board: the other player's vault keeps its name, not its value.
        let mut field = game.field().clone();
        field.apply(&Event::Marked { mark: vault(other) });
        field.apply(&Event::Marked { mark: vault(me) });
        let seen = Reader::Player(me)
            .field(&field, game.catalog())
            .expect("something hidden");
        let values: Vec<(MarkOn, i16)> = seen.marks().iter().map(|m| (m.on, m.value)).collect();
        assert_eq!(
            values,
            [(MarkOn::Player(me), 7), (MarkOn::Player(other), 0)]
        );
        assert!(Reader::Everyone.field(&field, game.catalog()).is_none());
        let action = hexforge_core::Action::Rule {
            rule: 0,
            action: 0,
            target: None,
            facing: None,
            tile: Some(netter),
        };
        assert_eq!(
            Reader::Player(me).describe_action(&action, other, game.catalog()),
            "stash on a tile"
        );
        assert_eq!(
            Reader::Player(other).describe_action(&action, other, game.catalog()),
            action.describe(game.catalog())
        );
    }
}

//! The game rules of mods (docs/RULESETS.md, "Game scripts"): which rules a game has in play,
//! their hooks called at the game's moments and what those hooks ask, and the answers
//! kept between actions (what is closed, where the rules' actions may be taken). The game flow
//! (`flow`, the floor above) carries out what the hooks ask.
//!
//! A game with no rule in play calls none of this: every entry point first tests the points of
//! the rules in play, an empty set.

use super::{Game, Loss};
use crate::battle::BattleReport;
use crate::battlefield::MAX_PLAYERS;
use crate::effect::Effect;
use crate::event::GameResult;
use crate::hooks::{
    AbilityHooks, GameContext, HookError, HqLoss, InstantTargets, PlayerPiles, Restriction,
    RuleCall, RulePoints,
};
use crate::rng::Rng;
use crate::rules::Rules;
use crate::shape::Cell;
use crate::tile::Catalog;

/// What `ctx:stage()` reads while the rules' `check` hooks are asked between two turns: the
/// turn is over and the next has not begun (docs/RULESETS.md, `check`).
pub const TURN_OVER: &str = "turn_over";

/// The seed of the next hook call outside a battle, from the game's hook seed and the count
/// of such calls `calls` (which it advances): the second output of a generator seeded with their
/// count in the low half, so that these seeds and a battle's come from different streams.
pub(super) fn hook_call_seed(hook_seed: u64, calls: &mut u32) -> u64 {
    let mut seeds = Rng::seeded(hook_seed ^ u64::from(*calls));
    *calls = calls.wrapping_add(1);
    seeds.next_u64();
    seeds.next_u64()
}

/// Losses followed in one go at most this often (a rule whose effects destroy a tile, whose
/// `destroyed` hook wounds another...): then the rest wait for the next action.
pub(super) const MAX_LOSS_ROUNDS: usize = 64;

/// Which of the catalog's game rules the rule options put in play, one bit per rule index, and
/// their points together.
pub(super) fn rules_in_play(catalog: &Catalog, rules: &Rules) -> (u64, RulePoints) {
    let declared = catalog.options();
    let mut mask = 0u64;
    let mut points = RulePoints::NONE;
    for (i, rule) in catalog.game_rules().iter().enumerate() {
        if rule.applies(|key| rules.option(declared, key)) {
            mask |= 1 << i;
            points = points.union(rule.points);
        }
    }
    (mask, points)
}

impl Game {
    /// The points of the game rules in play together; empty when no rule plays.
    pub fn rule_points(&self) -> RulePoints {
        self.rule_points
    }

    /// The indices (in `Catalog::game_rules`) of the game rules in play, in load order.
    pub fn rules_in_play(&self) -> impl Iterator<Item = usize> + '_ {
        crate::shape::bits(self.rules_in_play)
    }

    /// What the rules' `restrict` hooks closed to the current player after the last action.
    pub fn restriction(&self) -> Restriction {
        self.restriction
    }

    /// Where the rule action `action` of the rule `rule` may be taken now (both indices as
    /// `Catalog::game_rules` lists them); `None` when it may not be taken now.
    pub fn rule_action_targets(&self, rule: usize, action: usize) -> Option<InstantTargets> {
        self.rule_targets
            .iter()
            .find(|(r, a, _)| usize::from(*r) == rule && usize::from(*a) == action)
            .map(|(_, _, t)| *t)
    }

    /// Every rule action that may be taken now: rule index, action index and its targets.
    pub fn rule_actions(&self) -> impl Iterator<Item = (usize, usize, InstantTargets)> + '_ {
        self.rule_targets
            .iter()
            .map(|(r, a, t)| (usize::from(*r), usize::from(*a), *t))
    }

    /// Calls the hook of each rule in play whose points contain `point`, in load order, with a
    /// context of the game as it stands: `call` makes each call's argument. Every call is a
    /// reseed point of its own. The first failure stops the calls.
    pub(super) fn call_rules<H>(
        &self,
        point: RulePoints,
        hooks: &mut H,
        calls: &mut u32,
        call: impl FnMut(&mut H, &GameContext<'_>) -> Result<(), HookError>,
    ) -> Result<(), HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        self.call_rules_asked(point, hooks, calls, |_| true, call)
    }

    /// [`Game::call_rules`] for the rules `asked(rule)` says to ask now and whose `<point>_when`,
    /// if they declare one, holds now; the others are passed over as if they had been called
    /// (the reseed points that follow do not move).
    fn call_rules_asked<H>(
        &self,
        point: RulePoints,
        hooks: &mut H,
        calls: &mut u32,
        asked: impl Fn(usize) -> bool,
        call: impl FnMut(&mut H, &GameContext<'_>) -> Result<(), HookError>,
    ) -> Result<(), HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        self.call_rules_in(point, hooks, calls, asked, self.stage.word(), call)
    }

    /// [`Game::call_rules_asked`], the hooks reading `stage` as `ctx:stage()`.
    fn call_rules_in<H>(
        &self,
        point: RulePoints,
        hooks: &mut H,
        calls: &mut u32,
        asked: impl Fn(usize) -> bool,
        stage: &'static str,
        mut call: impl FnMut(&mut H, &GameContext<'_>) -> Result<(), HookError>,
    ) -> Result<(), HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let rules = self.catalog.game_rules();
        let n = self.field.player_count();
        let empty = PlayerPiles {
            army: "",
            hand: &[],
            deck: 0,
            discard: &[],
            reserve: &[],
        };
        let mut piles = [empty; MAX_PLAYERS];
        for (i, p) in piles.iter_mut().enumerate().take(n) {
            *p = PlayerPiles {
                army: &self.armies[i],
                hand: &self.piles[i].hand,
                deck: self.piles[i].deck.len(),
                discard: &self.piles[i].discard,
                reserve: &self.piles[i].reserve,
            };
        }
        for i in self.rules_in_play() {
            if !rules[i].points.contains(point) {
                continue;
            }
            if !asked(i) || !rules[i].asked_when(point).is_none_or(|w| self.ask_now(w)) {
                // Not asked now: the seeds of the calls that follow stay as if it had been.
                *calls = calls.wrapping_add(1);
                continue;
            }
            hooks.reseed(hook_call_seed(self.hook_seed, calls));
            let ctx = GameContext {
                field: &self.field,
                catalog: &self.catalog,
                rules: &self.rules,
                rule: i,
                player: self.state.turn.player(),
                turn: self.turn_number,
                battles: self.battles,
                last_tile_drawn: self.last_drawn,
                stage,
                played: self.state.tiles_played,
                placed: self.state.placed,
                discarded: self.state.discarded,
                piles: &piles[..n],
            };
            call(hooks, &ctx)?;
        }
        Ok(())
    }

    /// Asks the hooks of `point` of every rule in play for effects, `call` making each call
    /// with the list the effects go to; the calls are reseed points of the game.
    fn ask<H>(
        &mut self,
        point: RulePoints,
        hooks: &mut H,
        mut call: impl FnMut(&mut H, &GameContext<'_>, &mut Vec<Effect>) -> Result<(), HookError>,
    ) -> Result<Vec<Effect>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let mut effects: Vec<Effect> = Vec::new();
        let mut calls = self.hook_calls;
        let called = self.call_rules(point, hooks, &mut calls, |h, ctx| {
            call(h, ctx, &mut effects)
        });
        self.hook_calls = calls;
        called?;
        if point != RulePoints::ACTIONS && effects.iter().any(|e| matches!(e, Effect::Battle)) {
            return Err(HookError {
                message: "battle: a Battle is asked by a rule action's `play` (docs/RULESETS.md, \"The reserve\"), not at this point of the game".to_string(),
            });
        }
        // Each rule's effects were checked against the board when its hook returned; what an
        // earlier rule's effects make moot (a tile it lifts, which a later rule wounds) is
        // dropped, as effects made moot in a battle are.
        if !effects.is_empty() {
            crate::effect::drop_moot(&self.field, &mut effects);
        }
        self.check_piles(&effects)?;
        Ok(effects)
    }

    /// What the rules' pile effects ask of the piles, in order: a tile placed from a reserve
    /// that holds it (`fx:place`, a board tile), a tile set aside from a draw pile that holds it
    /// (`fx:set_aside`); a tile lifted joins its owner's reserve for the effects after it.
    fn check_piles(&self, effects: &[Effect]) -> Result<(), HookError> {
        if !effects.iter().any(|e| {
            matches!(
                e,
                Effect::Place { .. }
                    | Effect::Lift { .. }
                    | Effect::SetAside { .. }
                    | Effect::Discard { .. }
                    | Effect::Grant { .. }
            )
        }) {
            return Ok(());
        }
        let refuse = |message: String| Err(HookError { message });
        let mut reserves: Vec<Vec<crate::tile::TileRef>> =
            self.piles.iter().map(|p| p.reserve.clone()).collect();
        let mut decks: Vec<Vec<crate::tile::TileRef>> =
            self.piles.iter().map(|p| p.deck.clone()).collect();
        let mut hands: Vec<Vec<crate::tile::TileRef>> =
            self.piles.iter().map(|p| p.hand.clone()).collect();
        let mut on_board: Vec<Option<(crate::tile::TileRef, crate::seat::Seat)>> = self
            .field
            .shape()
            .cells()
            .map(|c| self.field.at(c).map(|p| (p.tile, p.owner)))
            .collect();
        let take = |v: &mut Vec<crate::tile::TileRef>, t| match v.iter().rposition(|x| *x == t) {
            Some(i) => {
                v.remove(i);
                true
            }
            None => false,
        };
        for e in effects {
            match *e {
                Effect::Place {
                    tile, owner, cell, ..
                } => {
                    let def = self.catalog.get(tile);
                    if !def.kind.is_board_tile() {
                        return refuse(format!(
                            "place: `{}` is an instant, not a tile for the board",
                            def.full_id()
                        ));
                    }
                    if !take(&mut reserves[owner.index()], tile) {
                        return refuse(format!(
                            "place: {owner} has no `{}` in reserve (the reserve holds {})",
                            def.full_id(),
                            self.names(&reserves[owner.index()])
                        ));
                    }
                    on_board[cell.index()] = Some((tile, owner));
                }
                Effect::Lift { cell } => {
                    if let Some((tile, owner)) = on_board[cell.index()].take() {
                        if self.catalog.get(tile).is_hq() {
                            return refuse(format!(
                                "lift: the tile on {} is an HQ, which never leaves the board but destroyed",
                                self.field.shape().hex(cell)
                            ));
                        }
                        reserves[owner.index()].push(tile);
                    }
                }
                Effect::Discard { player, tile } if !take(&mut hands[player.index()], tile) => {
                    return refuse(format!(
                        "discard: {player} holds no `{}` (the hand holds {})",
                        self.catalog.get(tile).full_id(),
                        self.names(&hands[player.index()])
                    ));
                }
                Effect::Grant { player, tile } => {
                    let def = self.catalog.get(tile);
                    if !def.kind.is_board_tile() || def.is_hq() {
                        return refuse(format!(
                            "grant: `{}` is not a tile for the board other than an HQ",
                            def.full_id()
                        ));
                    }
                    reserves[player.index()].push(tile);
                }
                Effect::SetAside { player, tile } => {
                    if !take(&mut decks[player.index()], tile) {
                        return refuse(format!(
                            "set_aside: the draw pile of {player} holds no `{}`",
                            self.catalog.get(tile).full_id()
                        ));
                    }
                    reserves[player.index()].push(tile);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Tiles as a short list of their ids, `nothing` for none.
    fn names(&self, tiles: &[crate::tile::TileRef]) -> String {
        if tiles.is_empty() {
            return "nothing".to_string();
        }
        tiles
            .iter()
            .map(|t| format!("`{}`", self.catalog.get(*t).full_id()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Asks the hooks of `point` (`setup`, `drawn`, `turn_ended`, `battle_started`,
    /// `battle_ended`) of every rule in play for their effects.
    pub(super) fn ask_rules<H>(
        &mut self,
        point: RulePoints,
        hooks: &mut H,
    ) -> Result<Vec<Effect>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        self.ask(point, hooks, |h, ctx, fx| {
            h.game_rule(ctx, RuleCall::Effects(point, fx))
        })
    }

    /// Asks the `turn_started` hooks, before the current player draws `draw` tiles: how many
    /// they draw instead, and the effects to carry out first.
    pub(super) fn ask_turn_started<H>(
        &mut self,
        draw: usize,
        hooks: &mut H,
    ) -> Result<(usize, Vec<Effect>), HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let mut count = u8::try_from(draw).unwrap_or(u8::MAX);
        let effects = self.ask(RulePoints::TURN_STARTED, hooks, |h, ctx, fx| {
            h.game_rule(
                ctx,
                RuleCall::TurnStarted {
                    draw: &mut count,
                    effects: fx,
                },
            )
        })?;
        Ok((usize::from(count), effects))
    }

    /// Asks the `destroyed` or `hq_damaged` hooks about one loss for their effects.
    pub(super) fn ask_loss<H>(
        &mut self,
        loss: Loss,
        hooks: &mut H,
    ) -> Result<Vec<Effect>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        match loss {
            Loss::Tile(lost) => self.ask(RulePoints::DESTROYED, hooks, |h, ctx, fx| {
                h.game_rule(ctx, RuleCall::Destroyed(lost, fx))
            }),
            Loss::Hq(hq) => self.ask(RulePoints::HQ_DAMAGED, hooks, |h, ctx, fx| {
                h.game_rule(ctx, RuleCall::HqDamaged(hq, fx))
            }),
        }
    }

    /// Asks the `play` function of the action `action` of rule `rule`, taken on `target`, for
    /// its effects.
    pub(super) fn ask_rule_action<H>(
        &mut self,
        (rule, action): (usize, usize),
        (target, facing, tile): (
            Option<Cell>,
            Option<crate::hex::Dir>,
            Option<crate::tile::TileRef>,
        ),
        hooks: &mut H,
    ) -> Result<Vec<Effect>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let in_play = std::mem::replace(&mut self.rules_in_play, 1u64 << rule);
        let asked = self.ask(RulePoints::ACTIONS, hooks, |h, ctx, fx| {
            h.game_rule(
                ctx,
                RuleCall::Play {
                    action,
                    target,
                    facing,
                    tile,
                    effects: fx,
                },
            )
        });
        self.rules_in_play = in_play;
        asked
    }

    /// The HQ losses of a battle just fought, from its report, in place of the HQ losses its
    /// events noted since `mark` (one per player and battle, with who dealt what).
    pub(super) fn note_battle_losses(&mut self, mark: usize, report: &BattleReport) {
        let mut i = mark;
        while i < self.losses.len() {
            if matches!(self.losses[i], Loss::Hq(_)) {
                self.losses.remove(i);
            } else {
                i += 1;
            }
        }
        for p in self.field.players() {
            let amount = report.hq_damage[p.index()];
            if amount > 0 {
                self.losses.push(Loss::Hq(HqLoss {
                    player: p,
                    amount,
                    hp: self.field.hq_hp(p),
                    by: report.hq_damage_by[p.index()],
                }));
            }
        }
    }

    /// Asks the `check` hooks: `ended` is the result the engine is ending the game with, if it
    /// is; the first rule (in load order) that gives a verdict decides, and comes back with it.
    /// `None` leaves the game as the engine has it.
    pub(super) fn ask_check<H>(
        &mut self,
        ended: Option<GameResult>,
        hooks: &mut H,
    ) -> Result<Option<(GameResult, u8)>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let mut calls = self.hook_calls;
        let verdict = self.check_with(ended, hooks, &mut calls, self.stage.word());
        self.hook_calls = calls;
        verdict
    }

    /// [`Game::ask_check`] between two turns (`ctx:stage()` reads [`TURN_OVER`]), with the
    /// game's own verdict unknown: asked where no reseed point was before, it draws from a seed
    /// of its own and leaves the game's reseed points as they were, so a game it does not end
    /// goes on as if it had not been asked.
    pub(super) fn ask_check_between_turns<H>(
        &mut self,
        hooks: &mut H,
    ) -> Result<Option<(GameResult, u8)>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let mut calls = self.hook_calls ^ 0x4000_0000;
        self.check_with(None, hooks, &mut calls, TURN_OVER)
    }

    /// The `check` hooks asked with `ended`, counting the calls in `calls`, the hooks reading
    /// `stage`: the first verdict and the rule that gave it.
    fn check_with<H>(
        &self,
        ended: Option<GameResult>,
        hooks: &mut H,
        calls: &mut u32,
        stage: &'static str,
    ) -> Result<Option<(GameResult, u8)>, HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        let mut verdict = None;
        let mut by = 0u8;
        self.call_rules_in(
            RulePoints::CHECK,
            hooks,
            calls,
            |_| true,
            stage,
            |h, ctx| {
                if verdict.is_some() {
                    return Ok(());
                }
                by = ctx.rule as u8;
                h.game_rule(
                    ctx,
                    RuleCall::Check {
                        ended,
                        verdict: &mut verdict,
                    },
                )
            },
        )?;
        Ok(verdict.map(|v| (v, by)))
    }

    /// Works out again what the rules close to the current player (`restrict`) and where their
    /// actions may be taken (their `targets` functions), kept until the next action so that
    /// listing the legal actions calls no hook. Nothing is asked once the game is over. Asking
    /// is no reseed point of the game: each call draws from a seed of its own, so asking again
    /// gives the same answers.
    pub(super) fn refresh_rules<H>(&mut self, hooks: &mut H) -> Result<(), HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        self.restriction = Restriction::default();
        self.rule_targets.clear();
        if !self.rule_points.intersects(RulePoints::AFTER_ACTIONS) || self.result().is_some() {
            return Ok(());
        }
        let shape_cells = self.field.shape().all();
        // A copy of the call count: refreshing does not advance the game's reseed points.
        let mut calls = self.hook_calls ^ 0x8000_0000;
        let mut restriction = Restriction::default();
        let rules = self.catalog.game_rules();
        self.call_rules(RulePoints::RESTRICT, hooks, &mut calls, |h, ctx| {
            let mut r = Restriction::default();
            h.game_rule(ctx, RuleCall::Restrict(&mut r))?;
            restriction.closed = restriction.closed.union(r.closed);
            restriction.blocked |= r.blocked & shape_cells;
            restriction.no_place |= r.no_place & shape_cells;
            restriction.instants |= r.instants;
            Ok(())
        })?;
        let mut found: Vec<(u8, u8, InstantTargets)> = Vec::new();
        let mut refusals: Vec<(u8, u8, String)> = Vec::new();
        let mut why = String::new();
        // A rule none of whose scripted actions may be offered now is not called at all.
        let some_action = |i: usize| {
            rules[i]
                .actions
                .iter()
                .any(|a| a.declared.is_none() && self.kept_back(a).is_none())
        };
        self.call_rules_asked(
            RulePoints::ACTIONS,
            hooks,
            &mut calls,
            some_action,
            |h, ctx| {
                for (action, def) in rules[ctx.rule].actions.iter().enumerate() {
                    // An action that cannot be offered now is not asked (`stages`, `marker`),
                    // nor one whose targets are declared (listed below).
                    if def.declared.is_some() || self.kept_back(def).is_some() {
                        continue;
                    }
                    let mut targets = InstantTargets::default();
                    why.clear();
                    h.game_rule(
                        ctx,
                        RuleCall::Targets {
                            action,
                            targets: &mut targets,
                            why: &mut why,
                        },
                    )?;
                    targets.cells &= shape_cells;
                    if !targets.is_empty() {
                        found.push((ctx.rule as u8, action as u8, targets));
                    } else if !why.is_empty() {
                        refusals.push((ctx.rule as u8, action as u8, why.clone()));
                    }
                }
                Ok(())
            },
        )?;
        for i in self.rules_in_play() {
            for (action, def) in rules[i].actions.iter().enumerate() {
                let Some(d) = &def.declared else { continue };
                if self.kept_back(def).is_some() {
                    continue;
                }
                let why = match self.declared_targets(&d.targets) {
                    Ok(t) if !t.is_empty() => {
                        found.push((i as u8, action as u8, t));
                        continue;
                    }
                    Ok(_) if !d.why.is_empty() => d.why.clone(),
                    Ok(_) => d.targets.none_listed().to_string(),
                    Err(why) if def.cites.is_empty() => why,
                    Err(why) => format!("{why} ({})", def.cites),
                };
                refusals.push((i as u8, action as u8, why));
            }
        }
        self.declared_restrictions(&found, &mut restriction);
        self.restriction = restriction;
        self.rule_targets = found;
        self.rule_refusals = refusals;
        Ok(())
    }

    /// Whether a hook declared with `<point>_when` `w` is asked now: the stage is one it lists,
    /// the player whose turn it is carries one of its `markers`, any player one of its `anyone`,
    /// or some tile or hex one of its `marked`.
    fn ask_now(&self, w: &crate::tile::AskWhen) -> bool {
        use crate::marker::MarkOn;
        if w.stages & self.stage.rule_flag() != 0 {
            return true;
        }
        let on = MarkOn::Player(self.state.turn.player());
        if w.markers.iter().any(|n| self.field.mark(on, *n).is_some()) {
            return true;
        }
        // Whether a marker of one of `names` is on a player (`players`) or on a tile or hex.
        let marks = self.field.marks();
        let any = |names: &[crate::marker::MarkerName], players: bool| {
            marks
                .iter()
                .any(|m| names.contains(&m.name) && matches!(m.on, MarkOn::Player(_)) == players)
        };
        any(&w.anyone, true) || any(&w.marked, false)
    }

    /// What keeps the rule action `def` from being offered now, before its `targets` is asked:
    /// its `stages` (the stage it is not offered in), its `after_discard` or `before_placing`
    /// (what the player has done this turn), its `lacks` (a player marker the player whose turn
    /// it is carries) or its `marker` (one they lack); `None` when none does.
    pub(super) fn kept_back(&self, def: &crate::tile::RuleAction) -> Option<KeptBack> {
        if self.state.rule_actions >= super::MAX_RULE_ACTIONS_PER_TURN {
            return Some(KeptBack::TurnFull);
        }
        self.unmet(def.stages, def.turn, def.marker, &def.lacks, &def.counts)
    }

    /// The first of the conditions an action or a declared restriction gives that does not
    /// hold now, in this order: its `stages`, its `turn` flags (`after_discard`,
    /// `before_placing`), its `lacks`, its `marker`, its counts; `None` when all hold.
    fn unmet(
        &self,
        stages: u8,
        turn: u8,
        marker: Option<crate::marker::MarkerName>,
        lacks: &[crate::marker::MarkerName],
        counts: &crate::declared::Counts,
    ) -> Option<KeptBack> {
        use crate::tile::RuleAction;
        if stages != 0 && stages & self.stage.rule_flag() == 0 {
            return Some(KeptBack::Stages(stages));
        }
        if turn & RuleAction::AFTER_DISCARD != 0 && !self.state.discarded {
            return Some(KeptBack::AfterDiscard);
        }
        if turn & RuleAction::BEFORE_PLACING != 0 && self.state.placed > 0 {
            return Some(KeptBack::BeforePlacing);
        }
        let on = crate::marker::MarkOn::Player(self.state.turn.player());
        let carries = |m: crate::marker::MarkerName| self.field.mark(on, m).is_some();
        if let Some(m) = lacks.iter().find(|m| carries(**m)) {
            return Some(KeptBack::Lacks(*m));
        }
        if let Some(m) = marker
            && !carries(m)
        {
            return Some(KeptBack::Marker(m));
        }
        self.failing_count(counts)
            .map(|(m, n, least)| KeptBack::Count(m, n, least))
    }

    /// The first of `counts` that does not hold for the player whose turn it is (see
    /// [`crate::declared::Counts::failing`]).
    fn failing_count(
        &self,
        counts: &crate::declared::Counts,
    ) -> Option<(crate::marker::MarkerName, i16, bool)> {
        if counts.is_empty() {
            return None;
        }
        let on = crate::marker::MarkOn::Player(self.state.turn.player());
        counts.failing(|m| self.field.mark(on, m).map_or(0, |k| k.value))
    }

    /// The targets of a rule action declared as data, for the player whose turn it is (perhaps
    /// none), or why they cannot be worked out now (a hex they grow from is missing).
    fn declared_targets(
        &self,
        d: &crate::declared::DeclaredTargets,
    ) -> Result<InstantTargets, String> {
        use crate::declared::{DeclaredTargets, SpotFrom};
        let p = self.state.turn.player();
        let mut out = InstantTargets::default();
        match d {
            DeclaredTargets::Spots { from, size } => {
                let shape = self.field.shape();
                let mut anchors = 0u64;
                for f in from {
                    let cell = match f {
                        SpotFrom::Hq => self
                            .field
                            .hq_cell(p, &self.catalog)
                            .ok_or("the player's HQ is not on the board")?,
                        SpotFrom::Marked(name) => self
                            .field
                            .marks()
                            .iter()
                            .find_map(|m| match m.on {
                                crate::marker::MarkOn::Hex(c)
                                    if m.name == *name && m.value == p.index() as i16 + 1 =>
                                {
                                    Some(c)
                                }
                                _ => None,
                            })
                            .ok_or_else(|| {
                                format!("no hex carries the player's marker `{name}`")
                            })?,
                    };
                    anchors |= cell.bit();
                }
                let segments = self.field.segments();
                if anchors & segments != 0 {
                    return Err(
                        "a hex it grows from is already a segment of a linked unit".to_string()
                    );
                }
                let free = shape.all() & !self.field.occupied() & !segments;
                out.cells = crate::link::spots(shape, anchors, free, u32::from(*size));
            }
            DeclaredTargets::Pile { kinds } => {
                let deck = &self.piles[p.index()].deck;
                if let Some(army) = self.catalog.army(&self.armies[p.index()]) {
                    for (i, t) in army.tiles.iter().take(64).enumerate() {
                        let kind = 1u8 << self.catalog.get(*t).kind as u8;
                        if kind & kinds != 0 && deck.contains(t) {
                            out.tiles |= 1u64 << i;
                        }
                    }
                }
            }
        }
        Ok(out)
    }

    /// What the rules' declared restrictions close now, given the rule actions offered
    /// (`found`): added to `restriction`.
    fn declared_restrictions(
        &self,
        found: &[(u8, u8, InstantTargets)],
        restriction: &mut Restriction,
    ) {
        let rules = self.catalog.game_rules();
        let p = self.state.turn.player();
        let shape_cells = self.field.shape().all();
        for i in self.rules_in_play() {
            for r in &rules[i].restrictions {
                if self
                    .unmet(r.stages, 0, r.marker, &r.lacks, &r.counts)
                    .is_some()
                    || r.offered.is_some_and(|a| {
                        !found
                            .iter()
                            .any(|(fr, fa, _)| usize::from(*fr) == i && *fa == a)
                    })
                {
                    continue;
                }
                restriction.closed = restriction.closed.union(r.close);
                if let Some(kind) = r.place_only_segments {
                    let open = self
                        .field
                        .links()
                        .iter()
                        .filter(|l| l.owner == p && l.kind == kind)
                        .fold(0u64, |m, l| m | l.segments)
                        & !self.field.occupied();
                    restriction.no_place |= !open & shape_cells;
                }
            }
        }
    }

    /// Why the rule action `action` of rule `rule` may not be taken now, when its `targets`
    /// function said so.
    pub fn rule_action_refusal(&self, rule: usize, action: usize) -> Option<&str> {
        self.rule_refusals
            .iter()
            .find(|(r, a, _)| usize::from(*r) == rule && usize::from(*a) == action)
            .map(|(_, _, why)| why.as_str())
    }
}

/// What keeps a rule action from being offered (`Game::kept_back`).
pub(super) enum KeptBack {
    /// Its `stages` flags, which do not hold the stage now.
    Stages(u8),
    /// Its `marker`, which the player whose turn it is does not carry.
    Marker(crate::marker::MarkerName),
    /// One of its `lacks`, which the player whose turn it is carries.
    Lacks(crate::marker::MarkerName),
    /// Its `after_discard`: the player has not discarded a tile this turn.
    AfterDiscard,
    /// Its `before_placing`: the player has placed a tile this turn.
    BeforePlacing,
    /// The turn has taken [`super::MAX_RULE_ACTIONS_PER_TURN`] rule actions already.
    TurnFull,
    /// One of its `at_least` (true) or `below` (false) counts, with the value declared, does
    /// not hold.
    Count(crate::marker::MarkerName, i16, bool),
}

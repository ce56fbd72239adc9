//! The game flow: performing a checked action, then everything that follows without a player's
//! input: draws at the start of a turn, battles (instant, full board, repeats, the Final Battle
//! and the tie-break), the end of the turn, the final round and the result.

use super::action::Checked;
use super::scripts::{MAX_LOSS_ROUNDS, hook_call_seed};
use super::{Game, Hand, Loss, Movers, Stage, apply_piles};
use crate::battle::{self, Context};
use crate::battlefield::{Battlefield, MAX_PLAYERS, Seat};
use crate::decision::{Choice, Decider, Decision, Question};
use crate::event::{BattleCause, DrawReason, Event, EventSink, GameResult};
use crate::game::{Action, ActionError};
use crate::hex::Dir;
use crate::hooks::{AbilityHooks, HookContext, HookError, HookPoints, HqLoss, Lost, RulePoints};
use crate::marker::Lasts;
use crate::play::{Turn, Views, resolve_with};
use crate::rng::Rng;
use crate::rules::{BattleLoopGuard, BattleTurnEnd, ExtendedTrigger, ExtraDiscards, TieBreaker};
use crate::shape::{Cell, bits};
use crate::tile::{Catalog, TileRef};
use std::sync::OnceLock;

thread_local! {
    /// The copy of a game an action keeps to put the game back if a hook fails, kept per thread
    /// from one action to the next (taken while in use: an action inside another makes its own).
    /// Its lists keep their room, so copying a game over it allocates nothing once it has grown.
    /// No result depends on it: every field is copied over at each use.
    static KEPT: std::cell::RefCell<Option<Game>> = const { std::cell::RefCell::new(None) };
}

/// Gives `copy` back as the thread's kept copy (a thread being torn down keeps nothing).
fn keep_copy(copy: Game) {
    let _ = KEPT.try_with(|k| *k.borrow_mut() = Some(copy));
}

/// Full-board battles repeat at most this often without a guard (`battle_loop_guard = none`):
/// then play goes on with the board full, so that every game ends.
const MAX_REPEATS: u32 = 100;

/// The game's outside world for one action: the hooks that answer for abilities and game rules,
/// the decider that answers the decisions of battles and plays for every player, and the sink the
/// events go to. The flow passes it on as one argument, the three references in a tuple
/// (`&mut (hooks, decider, sink)`), monomorphised as the three were.
pub(super) trait Outside {
    type Hooks: AbilityHooks + ?Sized;
    type Decide: Decider + ?Sized;
    type Sink: EventSink + ?Sized;

    /// The three, borrowed at once.
    fn parts(&mut self) -> (&mut Self::Hooks, &mut Self::Decide, &mut Self::Sink);

    #[inline(always)]
    fn hooks(&mut self) -> &mut Self::Hooks {
        self.parts().0
    }

    #[inline(always)]
    fn decider(&mut self) -> &mut Self::Decide {
        self.parts().1
    }

    #[inline(always)]
    fn sink(&mut self) -> &mut Self::Sink {
        self.parts().2
    }
}

impl<H, D, S> Outside for (&mut H, &mut D, &mut S)
where
    H: AbilityHooks + ?Sized,
    D: Decider + ?Sized,
    S: EventSink + ?Sized,
{
    type Hooks = H;
    type Decide = D;
    type Sink = S;

    #[inline(always)]
    fn parts(&mut self) -> (&mut H, &mut D, &mut S) {
        (&mut *self.0, &mut *self.1, &mut *self.2)
    }
}

/// Events of an action pass here, noting whose turn ended and whose began.
struct TurnWatch<'a, S: ?Sized> {
    sink: &'a mut S,
    ended: Option<Seat>,
    started: Option<Seat>,
}

impl<S: EventSink + ?Sized> EventSink for TurnWatch<'_, S> {
    fn push(&mut self, event: Event) {
        match event {
            Event::TurnEnded { player } => self.ended = Some(player),
            Event::TurnStarted { player, .. } => self.started = Some(player),
            _ => {}
        }
        self.sink.push(event);
    }

    fn keeps_events(&self) -> bool {
        self.sink.keeps_events()
    }
}

/// Events of the engine's battles and plays pass here: tiles that leave the board go to their
/// owners' discard piles (R4.3.5) before the events reach the caller.
struct Piled<'a, S: ?Sized> {
    piles: &'a mut [Hand; MAX_PLAYERS],
    /// The losses the game rules' hooks are to see, when a rule in play follows them.
    losses: Option<&'a mut Vec<Loss>>,
    /// The kept movers, if any, follow the tiles moved and removed.
    movers: Option<&'a mut Movers>,
    catalog: &'a Catalog,
    sink: &'a mut S,
}

impl<S: EventSink + ?Sized> EventSink for Piled<'_, S> {
    fn push(&mut self, event: Event) {
        apply_piles(self.piles, &event);
        if let Some(losses) = self.losses.as_deref_mut() {
            note_loss(losses, &event);
        }
        if let Some(movers) = self.movers.as_deref_mut() {
            movers.follow(self.catalog, &event);
        }
        self.sink.push(event);
    }

    fn keeps_events(&self) -> bool {
        self.sink.keeps_events()
    }
}

/// Notes a tile that left the board or HP an HQ lost, for the rules' `destroyed` and
/// `hq_damaged` hooks (only games with such a rule in play call it).
#[cold]
#[inline(never)]
fn note_loss(losses: &mut Vec<Loss>, event: &Event) {
    match *event {
        Event::Removed { cell, tile, owner } => {
            losses.push(Loss::Tile(Lost { cell, tile, owner }));
        }
        Event::HqDamaged { player, amount, hp } => losses.push(Loss::Hq(HqLoss {
            player,
            amount,
            hp,
            by: [0; MAX_PLAYERS],
        })),
        _ => {}
    }
}

/// The seed of battle number `battles`' scripts: the first output of a generator seeded with
/// the game's hook seed and that number in the high half.
fn battle_seed(hook_seed: u64, battles: u32) -> u64 {
    Rng::seeded(hook_seed ^ u64::from(battles).rotate_left(32)).next_u64()
}

/// The seed of the `targets` hooks of the `k`th scripted instant in a hand, from the game's hook
/// seed and the count of hook calls so far (which it leaves as it is: working the targets out is
/// no reseed point of the game, so doing it again gives the same list): the third output of a
/// generator seeded with both, so that these seeds come from a stream of their own.
fn targets_seed(hook_seed: u64, calls: u32, k: usize) -> u64 {
    let mut seeds = Rng::seeded(hook_seed ^ u64::from(calls) ^ (k as u64).rotate_left(48));
    seeds.next_u64();
    seeds.next_u64();
    seeds.next_u64()
}

impl Game {
    /// The board, the turn, the rules context of a play and the sink that keeps the piles in step
    /// with it (the losses too when a rule in play follows them, and the kept movers): the game's
    /// fields borrowed one by one, for a battle, a play or effects carried out.
    fn piled<'a, S: ?Sized>(
        &'a mut self,
        sink: &'a mut S,
    ) -> (&'a mut Battlefield, &'a mut Turn, Context<'a>, Piled<'a, S>) {
        let catalog = &*self.catalog;
        let losses = self
            .rule_points
            .intersects(RulePoints::LOSSES)
            .then_some(&mut self.losses);
        (
            &mut self.field,
            &mut self.state.turn,
            Context {
                catalog,
                rules: &self.rules,
            },
            Piled {
                piles: &mut self.piles,
                losses,
                movers: self.movers.get_mut(),
                catalog,
                sink,
            },
        )
    }

    /// Works out again the targets of each scripted instant in the current player's hand
    /// ([`Game::instant_targets`]) with `hooks`; nothing is listed once the game is over.
    pub(super) fn refresh_targets<H>(&mut self, hooks: &mut H) -> Result<(), HookError>
    where
        H: AbilityHooks + ?Sized,
    {
        self.scripted.clear();
        if !self.has_scripted || self.result().is_some() {
            return Ok(());
        }
        let player = self.state.turn.player();
        let hand = self.piles[player.index()].hand.clone();
        for (i, tile) in hand.iter().enumerate() {
            if hand[..i].contains(tile) || !crate::instant::is_scripted(&self.catalog, *tile) {
                continue;
            }
            hooks.reseed(targets_seed(
                self.hook_seed,
                self.hook_calls,
                self.scripted.len(),
            ));
            let targets =
                crate::instant::targets(&self.field, self.context(), player, *tile, hooks)?;
            self.scripted.push((*tile, targets));
        }
        Ok(())
    }

    /// The board `action` leaves, written into `board` (made over a copy of this game's board),
    /// when it is a legal placement that nothing follows: no hook it may call, no game rule in
    /// play, no linked unit it joins, no battle it starts (the play area stays open). Then the
    /// board is exactly the one [`Game::act`] would leave, and a bot scoring many placements
    /// needs no copy of the whole game for each. `false` otherwise (`board` then holds whatever
    /// it held): act on a copy of the game instead.
    pub fn board_after_placing(&self, action: &Action, board: &mut Battlefield) -> bool {
        if self.has_scripted || !self.rule_points.is_empty() || self.stage != Stage::Play {
            return false;
        }
        let Ok(checked) = self.check_action(action) else {
            return false;
        };
        let &Checked::Place { tile, cell, facing } = &checked else {
            return false;
        };
        let owner = self.state.turn.player();
        let fills = self.field.shape().main_area() & !self.field.occupied() == cell.bit();
        if fills
            || self.may_call_hooks(&checked)
            || !matches!(
                self.field
                    .assemble(&self.catalog, owner, tile, cell, facing),
                Ok(None)
            )
        {
            return false;
        }
        board.clone_from(&self.field);
        board.apply(&Event::Placed {
            cell,
            tile,
            owner,
            facing,
        });
        true
    }

    /// Checks and performs an action of the current player, then runs the game on until a player
    /// must act again (or the game is over). `hooks` take part in battles; `decider` answers the
    /// decisions of battles and plays for every player; every event goes to `sink`. A refused
    /// action changes nothing.
    pub fn act<H, D, S>(
        &mut self,
        action: &Action,
        hooks: &mut H,
        decider: &mut D,
        sink: &mut S,
    ) -> Result<(), ActionError>
    where
        H: AbilityHooks + ?Sized,
        D: Decider + ?Sized,
        S: EventSink + ?Sized,
    {
        let checked = self.check_action(action)?;
        if self.has_scripted || !self.rule_points.is_empty() || self.may_call_hooks(&checked) {
            return self.act_kept(checked, hooks, decider, sink);
        }
        self.perform(checked, &mut (hooks, decider, sink));
        match self.hook_failure.take() {
            Some(e) => Err(ActionError::Hook(e)),
            None => Ok(()),
        }
    }

    /// Performs a checked action that may call hooks, keeping the game as it was and holding its
    /// events back until the action has not failed: a failure puts the game back and refuses
    /// the action.
    #[inline(never)]
    fn act_kept<H, D, S>(
        &mut self,
        checked: Checked,
        hooks: &mut H,
        decider: &mut D,
        sink: &mut S,
    ) -> Result<(), ActionError>
    where
        H: AbilityHooks + ?Sized,
        D: Decider + ?Sized,
        S: EventSink + ?Sized,
    {
        // A battle with scripted tiles can fail: keep the game and the events until it has not
        // (a sink that drops the events needs none held back). The copy is made over the last
        // one this thread kept, so an action allocates nothing for it once that one has grown.
        let mut before = match KEPT.with(|k| k.borrow_mut().take()) {
            Some(mut g) => {
                g.clone_from(self);
                g
            }
            None => self.clone(),
        };
        let mut held: Vec<Event> = Vec::new();
        if sink.keeps_events() {
            self.perform(checked, &mut (&mut *hooks, &mut *decider, &mut held));
        } else {
            self.perform(checked, &mut (&mut *hooks, &mut *decider, &mut *sink));
        }
        let failure = match self.hook_failure.take() {
            Some(e) => Some(e),
            None => self
                .refresh_targets(hooks)
                .and_then(|()| self.refresh_rules(hooks))
                .err(),
        };
        if let Some(e) = failure {
            std::mem::swap(self, &mut before);
            keep_copy(before);
            return Err(ActionError::Hook(e));
        }
        keep_copy(before);
        for e in held {
            sink.push(e);
        }
        Ok(())
    }

    /// The game rules' hooks of `point` (`setup`, `drawn`, `turn_ended`, `battle_started`,
    /// `battle_ended`), then the effects they asked carried out at once; a failure is left in
    /// `hook_failure`.
    #[inline(never)]
    pub(super) fn rule_effects<O: Outside>(&mut self, point: RulePoints, outside: &mut O) {
        if !self.rule_points.contains(point) || self.hook_failure.is_some() {
            return;
        }
        match self.ask_rules(point, outside.hooks()) {
            Ok(effects) => self.carry_out(&effects, outside),
            Err(e) => {
                self.hook_failure.get_or_insert(e);
            }
        }
    }

    /// A game rule's action taken by the current player on `target`: the event, then what its
    /// `play` function asks carried out at once; a failure is left in `hook_failure`.
    #[cold]
    #[inline(never)]
    fn take_rule_action<O: Outside>(
        &mut self,
        (rule, action): (usize, usize),
        (target, facing, tile): (
            Option<Cell>,
            Option<crate::hex::Dir>,
            Option<crate::tile::TileRef>,
        ),
        outside: &mut O,
    ) {
        let player = self.state.turn.player();
        self.emit(
            Event::RuleAction {
                player,
                rule: rule as u8,
                action: action as u8,
                at: target,
                facing,
                tile,
            },
            outside.sink(),
        );
        match self.ask_rule_action((rule, action), (target, facing, tile), outside.hooks()) {
            Ok(effects) => {
                self.carry_out(&effects, outside);
                let battle = effects
                    .iter()
                    .any(|e| matches!(e, crate::effect::Effect::Battle));
                if battle && self.result().is_none() && self.hook_failure.is_none() {
                    self.battle_ends_turn(BattleCause::Rule { player }, outside);
                }
            }
            Err(e) => {
                self.hook_failure.get_or_insert(e);
            }
        }
    }

    /// The rules' `turn_started` hooks before the current player draws `draw` tiles: their
    /// effects carried out, and how many tiles the player draws.
    #[inline(never)]
    fn rule_turn_started<O: Outside>(&mut self, draw: usize, outside: &mut O) -> usize {
        if !self.rule_points.contains(RulePoints::TURN_STARTED) || self.hook_failure.is_some() {
            return draw;
        }
        match self.ask_turn_started(draw, outside.hooks()) {
            Ok((n, effects)) => {
                self.carry_out(&effects, outside);
                n
            }
            Err(e) => {
                self.hook_failure.get_or_insert(e);
                draw
            }
        }
    }

    /// The rules' `destroyed` and `hq_damaged` hooks, for every loss not yet seen, in the order
    /// they happened; each loss's effects are carried out before the next loss (and their own
    /// losses follow, up to [`MAX_LOSS_ROUNDS`] rounds). A failure is left in `hook_failure`.
    #[inline(never)]
    fn rule_losses<O: Outside>(&mut self, outside: &mut O) {
        for _ in 0..MAX_LOSS_ROUNDS {
            if self.losses.is_empty() || self.hook_failure.is_some() || self.result().is_some() {
                break;
            }
            for loss in std::mem::take(&mut self.losses) {
                if self.hook_failure.is_some() || self.result().is_some() {
                    break;
                }
                match self.ask_loss(loss, outside.hooks()) {
                    Ok(effects) => self.carry_out(&effects, outside),
                    Err(e) => {
                        self.hook_failure.get_or_insert(e);
                    }
                }
            }
        }
        self.losses.clear();
    }

    /// Ends the game with `result`, or with the verdict the rules' `check` hooks give instead.
    fn end_game<O: Outside>(&mut self, result: GameResult, outside: &mut O) {
        let (result, by_rule) = if self.rule_points.contains(RulePoints::CHECK) {
            match self.ask_check(Some(result), outside.hooks()) {
                Ok(Some((verdict, rule))) => (verdict, Some(rule)),
                Ok(None) => (result, None),
                Err(e) => {
                    self.hook_failure.get_or_insert(e);
                    return;
                }
            }
        } else {
            (result, None)
        };
        self.emit(Event::GameEnded { result, by_rule }, outside.sink());
    }

    /// While the game goes on, the rules' `check` hooks may end it.
    #[inline(never)]
    fn rules_may_end<O: Outside>(&mut self, outside: &mut O) {
        if self.result().is_some()
            || self.hook_failure.is_some()
            || !self.rule_points.contains(RulePoints::CHECK)
        {
            return;
        }
        let asked = self.ask_check(None, outside.hooks());
        self.take_verdict(asked, outside);
    }

    /// What the rules' `check` hooks answered: a verdict ends the game (naming the rule), a
    /// failure is left in `hook_failure`. Whether either happened.
    fn take_verdict<O: Outside>(
        &mut self,
        asked: Result<Option<(GameResult, u8)>, HookError>,
        outside: &mut O,
    ) -> bool {
        match asked {
            Ok(Some((result, rule))) => {
                self.emit(
                    Event::GameEnded {
                        result,
                        by_rule: Some(rule),
                    },
                    outside.sink(),
                );
                true
            }
            Ok(None) => false,
            Err(e) => {
                self.hook_failure.get_or_insert(e);
                true
            }
        }
    }

    /// Whether performing a checked action may call ability hooks: it may start a battle (a
    /// Battle tile, a placement that fills the play area, the end of a turn in the final round)
    /// and a tile whose abilities have hook points is on the board or being placed.
    fn may_call_hooks(&self, checked: &Checked) -> bool {
        let points = |t: TileRef| self.catalog.traits(t).hooks;
        let placing = match checked {
            Checked::Place { tile, .. } => points(*tile),
            // A scripted instant is played by its hooks.
            Checked::Scripted { .. } => return true,
            _ => HookPoints::NONE,
        };
        // Which actions may fight a battle, and which may end a turn: most do neither, and need
        // no look at the board.
        let (battle, turn_ends) = match checked {
            Checked::Battle(_) => (true, true),
            Checked::EndTurn => (self.owed.is_some(), true),
            Checked::Place { cell, .. } => {
                let fills = self.stage == Stage::Play
                    && self.field.shape().main_area() & !self.field.occupied() == cell.bit();
                (fills, fills)
            }
            _ => (false, false),
        };
        let any = self.catalog.hook_points();
        if !(battle && any.intersects(HookPoints::BATTLE)
            || turn_ends && any.intersects(HookPoints::TURNS)
            || placing.contains(HookPoints::PLACED))
        {
            return false;
        }
        let board = self
            .field
            .tiles()
            .fold(HookPoints::NONE, |acc, (_, p)| acc.union(points(p.tile)));
        placing.contains(HookPoints::PLACED)
            || (battle && board.union(placing).intersects(HookPoints::BATTLE))
            || (turn_ends && board.intersects(HookPoints::TURNS))
    }

    /// Calls the hooks of `point` (`placed`, `turn_started` or `turn_ended`) for the tiles on
    /// `cells` in reading order, then carries out the effects they ask for; a failure is left in
    /// `hook_failure`.
    fn tile_hooks<O: Outside>(&mut self, point: HookPoints, cells: u64, outside: &mut O) {
        let mut effects = Vec::new();
        for c in bits(cells) {
            let cell = self.field.shape().cell_from_index(c);
            let Some(p) = self.field.at(cell).copied() else {
                continue;
            };
            let def = self.catalog.get(p.tile);
            for ability in def.abilities.iter().filter(|a| a.points.contains(point)) {
                // Every call outside a battle is a reseed point of its own: what it draws, and
                // the script state it sees, depend only on the game and the count of such calls.
                let seed = hook_call_seed(self.hook_seed, &mut self.hook_calls);
                outside.hooks().reseed(seed);
                let ctx = HookContext {
                    field: &self.field,
                    catalog: &self.catalog,
                    rules: &self.rules,
                    cell,
                    def,
                    ability,
                    phase: 0,
                    initiative_changes: &[],
                    gifts: &[],
                };
                let asked = effects.len();
                let (called, name) = if point == HookPoints::PLACED {
                    (outside.hooks().placed(&ctx, &mut effects), "placed")
                } else if point == HookPoints::TURN_STARTED {
                    (
                        outside.hooks().turn_started(&ctx, &mut effects),
                        "turn_started",
                    )
                } else {
                    (outside.hooks().turn_ended(&ctx, &mut effects), "turn_ended")
                };
                // What one hook asks must make sense on the board as it is (a move onto a hex
                // its own earlier effect fills is its mistake); what another hook asked before
                // may make it moot, which drops it below.
                let called = called.and_then(|()| {
                    crate::effect::check_effects(&self.field, &effects[asked..]).map_err(|e| {
                        HookError {
                            message: format!("{name}, {}: {}", def.full_id(), e.message),
                        }
                    })
                });
                if let Err(e) = called {
                    self.hook_failure.get_or_insert(e);
                    return;
                }
            }
        }
        // Effects another tile's hook made moot since they were asked are dropped, as in battles.
        crate::effect::drop_moot(&self.field, &mut effects);
        self.carry_out(&effects, outside);
    }

    /// Carries out the effects hooks asked for outside a battle, at once (a volley of scripted
    /// attacks first), then ends the game if they decided it; a failure is left in
    /// `hook_failure`.
    fn carry_out<O: Outside>(&mut self, effects: &[crate::effect::Effect], outside: &mut O) {
        if effects.is_empty() {
            return;
        }
        if effects
            .iter()
            .any(|e| matches!(e, crate::effect::Effect::Attack(_)))
        {
            // The hooks of a volley of scripted attacks draw from a reseed point of their own.
            let seed = hook_call_seed(self.hook_seed, &mut self.hook_calls);
            outside.hooks().reseed(seed);
        }
        let (hooks, decider, sink) = outside.parts();
        let (field, _, ctx, mut out) = self.piled(sink);
        if let Err(e) =
            crate::battle::resolve_effects(field, ctx, hooks, decider, &mut out, effects)
        {
            self.hook_failure.get_or_insert(e);
            return;
        }
        // Effects' events reach the piles, not the turn: a rule's discard from the hand of the
        // player whose turn it is is the turn's discard (R2.5.2), as the player's own would be;
        // a discard from another player's hand is not.
        let current = self.state.turn.player();
        if effects.iter().any(
            |e| matches!(e, crate::effect::Effect::Discard { player, .. } if *player == current),
        ) {
            self.turn_discarded();
        }
        // The kept movers followed the effects' events; the views are worked out again.
        self.views = OnceLock::new();
        debug_assert!(
            self.movers
                .get()
                .is_none_or(|m| *m == Movers::of(&self.field, &self.catalog))
        );
        if self.result().is_none()
            && let Some(result) = self.decisive()
        {
            self.end_game(result, outside);
        }
    }

    /// The hooks of `point` (`turn_started` or `turn_ended`) of `player`'s tiles, as
    /// [`Self::tile_hooks`] calls them.
    pub(super) fn turn_hooks<O: Outside>(
        &mut self,
        player: Seat,
        point: HookPoints,
        outside: &mut O,
    ) {
        let cells = self.hooked_tiles(player, point);
        if cells != 0 {
            self.tile_hooks(point, cells, outside);
        }
    }

    /// The cells of `player`'s tiles whose abilities define `point`.
    fn hooked_tiles(&self, player: Seat, point: HookPoints) -> u64 {
        // Most catalogs have no turn hooks at all: no need to look at the board.
        if !self.catalog.hook_points().contains(point) {
            return 0;
        }
        self.field
            .tiles()
            .filter(|(_, p)| p.owner == player && self.catalog.traits(p.tile).hooks.contains(point))
            .fold(0, |m, (c, _)| m | c.bit())
    }

    /// Performs a checked action, then runs the game on; a hook failure is left in
    /// `hook_failure`. Turn hooks run once the action is done: `turn_ended` for the player whose
    /// turn it ended, then `turn_started` for the player whose turn it began.
    fn perform<O: Outside>(&mut self, checked: Checked, outside: &mut O) {
        if self.catalog.hook_points().intersects(HookPoints::TURNS) {
            self.perform_watched(checked, outside);
        } else {
            // No tile of the catalog has turn hooks: nobody needs to know whose turn ended.
            self.perform_action(checked, outside);
        }
        if !self.rule_points.is_empty() && self.hook_failure.is_none() {
            // What the action destroyed outside battles, then whether the rules end the game.
            self.rule_losses(outside);
            if self.hook_failure.is_none() {
                self.rules_may_end(outside);
            }
        }
    }

    /// Performs a checked action watching whose turn it ends and whose it begins, then calls
    /// their tiles' turn hooks.
    #[inline(never)]
    fn perform_watched<O: Outside>(&mut self, checked: Checked, outside: &mut O) {
        let (hooks, decider, sink) = outside.parts();
        let mut watch = TurnWatch {
            sink,
            ended: None,
            started: None,
        };
        self.perform_action(checked, &mut (hooks, decider, &mut watch));
        let (ended, started) = (watch.ended, watch.started);
        for (seat, point) in [
            (ended, HookPoints::TURN_ENDED),
            (started, HookPoints::TURN_STARTED),
        ] {
            let Some(seat) = seat else { continue };
            if self.hook_failure.is_some() || self.result().is_some() {
                break;
            }
            self.turn_hooks(seat, point, outside);
        }
    }

    fn perform_action<O: Outside>(&mut self, checked: Checked, outside: &mut O) {
        let player = self.state.turn.player();
        // Discards and redraws never touch the board; ending a turn changes it only by a battle; a
        // placement updates the kept views itself.
        let views_kept = matches!(
            checked,
            Checked::Discard(_) | Checked::Redraw | Checked::EndTurn | Checked::Place { .. }
        );
        let battles = self.battles;
        match checked {
            Checked::Place { tile, cell, facing } => {
                let setup = self.stage == Stage::PlaceHq;
                self.emit(
                    Event::Placed {
                        cell,
                        tile,
                        owner: player,
                        facing,
                    },
                    outside.sink(),
                );
                let mut placed = cell.bit();
                if let Ok(Some(a)) = self
                    .field
                    .assemble(&self.catalog, player, tile, cell, facing)
                {
                    self.assemble(player, facing, a, outside);
                    placed = self.field.link_at(cell).map_or(placed, |l| l.segments);
                    self.views = OnceLock::new();
                } else {
                    self.views = self.views_after_placing(cell);
                }
                let hooked = bits(placed).any(|i| {
                    self.field
                        .at(self.field.shape().cell_from_index(i))
                        .is_some_and(|p| {
                            self.catalog
                                .traits(p.tile)
                                .hooks
                                .contains(HookPoints::PLACED)
                        })
                });
                if hooked {
                    self.tile_hooks(HookPoints::PLACED, placed, outside);
                    if self.hook_failure.is_some() || self.result().is_some() {
                        return;
                    }
                }
                if setup {
                    self.next_hq(outside);
                } else if self.field.main_area_full() {
                    // R4.11.1: a full play area starts a battle at once and ends the turn.
                    self.board_full(outside);
                }
            }
            Checked::Discard(tile) => {
                // R9.2.2: beyond the compulsory discard, a discard may cost a tile of the turn.
                if self.stage == Stage::Play && self.rules.extra_discards == ExtraDiscards::Counted
                {
                    self.state.discards_counted += 1;
                }
                self.emit(Event::Discarded { player, tile }, outside.sink())
            }
            Checked::Redraw => {
                self.emit(Event::BadDraw { player }, outside.sink());
                let hand = self.hand(player).to_vec();
                for tile in &hand {
                    self.emit(
                        Event::Discarded {
                            player,
                            tile: *tile,
                        },
                        outside.sink(),
                    );
                }
                // Q4: draw as many as were discarded; the check may apply again.
                self.state.acted = false;
                self.draw(player, hand.len(), outside.sink());
            }
            Checked::EndTurn => self.end_turn(outside),
            Checked::Battle(tile) => {
                self.emit(
                    Event::InstantPlayed {
                        player,
                        tile,
                        at: None,
                    },
                    outside.sink(),
                );
                self.battle_ends_turn(BattleCause::Instant { player }, outside);
            }
            Checked::Play(tile, play) => {
                if let Some(tile) = tile {
                    self.emit(
                        Event::InstantPlayed {
                            player,
                            tile,
                            at: None,
                        },
                        outside.sink(),
                    );
                } else if self.closes_tiles() {
                    self.state.tiles_closed = true;
                }
                self.state.acted = true;
                self.resolve(&play, outside);
            }
            Checked::Scripted { tile, target } => {
                // R5: the instant goes to the discard pile as it is played, then its scripts act.
                self.emit(
                    Event::InstantPlayed {
                        player,
                        tile,
                        at: target,
                    },
                    outside.sink(),
                );
                let seed = hook_call_seed(self.hook_seed, &mut self.hook_calls);
                outside.hooks().reseed(seed);
                match crate::instant::asked(
                    &self.field,
                    self.context(),
                    player,
                    tile,
                    target,
                    outside.hooks(),
                ) {
                    Ok(effects) => self.carry_out(&effects, outside),
                    Err(e) => {
                        self.hook_failure.get_or_insert(e);
                    }
                }
            }
            Checked::Rule {
                rule,
                action,
                target,
                facing,
                tile,
            } => self.take_rule_action((rule, action), (target, facing, tile), outside),
            Checked::Push {
                tile,
                pusher,
                target,
                options,
            } => {
                self.emit(
                    Event::InstantPlayed {
                        player,
                        tile,
                        at: None,
                    },
                    outside.sink(),
                );
                let choices: Vec<Choice> = bits(options)
                    .map(|i| Choice::To {
                        cell: self.field.shape().cell_from_index(i),
                    })
                    .collect();
                let owner = self.field.at(target).map(|p| p.owner).unwrap_or(player);
                let pick = if choices.len() > 1 {
                    outside.decider().decide(
                        &self.field,
                        &Decision {
                            question: Question::PushTo,
                            by: target,
                            player: owner,
                            options: &choices,
                        },
                    )
                } else {
                    0
                };
                let Some(Choice::To { cell }) = choices.get(pick).or(choices.first()).copied()
                else {
                    return;
                };
                let shape = self.field.shape();
                let play = crate::play::Play::Push {
                    pusher: shape.hex(pusher),
                    target: shape.hex(target),
                    to: shape.hex(cell),
                };
                self.resolve(&play, outside);
            }
        }
        // The kept movers followed every tile placed, moved and removed.
        if !views_kept || self.battles != battles {
            self.views = OnceLock::new();
        }
        debug_assert!(
            self.movers
                .get()
                .is_none_or(|m| *m == Movers::of(&self.field, &self.catalog))
        );
    }

    /// Puts down the parts of a tile just placed (`[tile.linked]`) and makes them and it one
    /// linked unit.
    #[cold]
    fn assemble<O: Outside>(
        &mut self,
        owner: Seat,
        facing: Dir,
        a: crate::battlefield::Assembled,
        outside: &mut O,
    ) {
        for (cell, tile) in a.parts {
            self.emit(
                Event::Joined {
                    cell,
                    tile,
                    owner,
                    facing,
                },
                outside.sink(),
            );
        }
        self.emit(a.link, outside.sink());
    }

    /// The kept views once a tile has been placed on `cell`: updated when they can be, else
    /// dropped, to be worked out again when needed.
    fn views_after_placing(&self, cell: Cell) -> OnceLock<Views> {
        let Some(views) = self
            .views
            .get()
            .and_then(|v| v.after_placing(&self.field, self.context(), cell))
        else {
            return OnceLock::new();
        };
        debug_assert_eq!(views, Views::new(&self.field, self.context()));
        OnceLock::from(views)
    }

    /// Applies an event and passes it on.
    fn emit<S: EventSink + ?Sized>(&mut self, event: Event, sink: &mut S) {
        self.apply(&event);
        sink.push(event);
    }

    /// The end of `player`'s turn: the event, then the markers whose time runs out with it
    /// (those put for the turn go, those put for a number of turns count one down).
    /// The game rules' `turn_ended` hooks follow.
    fn turn_over<O: Outside>(&mut self, player: Seat, outside: &mut O) {
        self.emit(Event::TurnEnded { player }, outside.sink());
        if !self.field.marks().is_empty() {
            crate::battle::expire_marks(&mut self.field, Lasts::Turn, true, outside.sink());
            // The nets and moves the kept views hold may depend on the markers that went.
            self.views = OnceLock::new();
        }
        if !self.rule_points.is_empty() {
            self.rule_effects(RulePoints::TURN_ENDED, outside);
        }
    }

    /// Resolves a checked core play (an instant's effect or a Mobility move) with the kept views it
    /// was checked against.
    fn resolve<O: Outside>(&mut self, play: &crate::play::Play, outside: &mut O) {
        // The views the play was checked with: the board has not changed since.
        let views = self.views();
        let (_, decider, sink) = outside.parts();
        let (field, turn, ctx, mut out) = self.piled(sink);
        // Checked just before: a refusal here would be an engine bug, and changes nothing.
        let _ = resolve_with(field, ctx, turn, play, &views, decider, &mut out);
    }

    /// After an HQ is placed: the next player in turn order without one, or the first turn (R2.3).
    fn next_hq<O: Outside>(&mut self, outside: &mut O) {
        let next = self
            .order
            .iter()
            .copied()
            .find(|p| self.field.hq_cell(*p, &self.catalog).is_none());
        match next {
            Some(p) => self.state = super::TurnState::new(p),
            None => {
                self.cursor = 0;
                self.begin_turn(self.order[0], outside);
            }
        }
    }

    /// A turn begins: the player draws (R2.4 opening draws of 1, 2 and 3, then up to the hand
    /// size; R9.1, R9.2). The game rules' `turn_started` hooks run before the draw (and may
    /// change how many tiles are drawn), their `drawn` hooks after it.
    #[inline]
    pub(super) fn begin_turn<O: Outside>(&mut self, player: Seat, outside: &mut O) {
        let number = self.turn_number + 1;
        self.emit(Event::TurnStarted { player, number }, outside.sink());
        let up_to = self.draw_target(number);
        let have = self.hand(player).len();
        let mut n = up_to.saturating_sub(have);
        if !self.rule_points.is_empty() {
            n = self.rule_turn_started(n, outside);
            if self.hook_failure.is_some() || self.result().is_some() {
                return;
            }
        }
        self.draw(player, n, outside.sink());
        if !self.rule_points.is_empty() {
            self.rule_effects(RulePoints::DRAWN, outside);
        }
    }

    /// Draws up to `n` tiles one at a time from the top of the pile (R2.5.1); the first player to
    /// draw their last tile starts the final round (R2.8.1).
    fn draw<S: EventSink + ?Sized>(&mut self, player: Seat, n: usize, sink: &mut S) {
        for _ in 0..n {
            let Some(&tile) = self.piles[player.index()].deck.last() else {
                break;
            };
            self.emit(Event::Drew { player, tile }, sink);
            if self.piles[player.index()].deck.is_empty() && !self.last_drawn {
                self.emit(Event::LastTileDrawn { player }, sink);
            }
        }
    }

    fn end_turn<O: Outside>(&mut self, outside: &mut O) {
        let player = self.state.turn.player();
        self.turn_over(player, outside);
        if !self.rules_end_between_turns(outside) {
            self.after_turn(outside);
        }
    }

    /// The rules' `check` sees the turn that ended before the next one begins: a rule that ends
    /// the game after some turns ends it before anyone draws again. Whether the game ended (or a
    /// hook failed).
    fn rules_end_between_turns<O: Outside>(&mut self, outside: &mut O) -> bool {
        if self.hook_failure.is_some() || self.result().is_some() {
            return true;
        }
        if !self.rule_points.contains(RulePoints::CHECK) {
            return false;
        }
        let asked = self.ask_check_between_turns(outside.hooks());
        self.take_verdict(asked, outside)
    }

    /// After a turn: the Final Battle (or the tie-break battle) when nobody owes a last turn any
    /// more, else the next player's turn.
    fn after_turn<O: Outside>(&mut self, outside: &mut O) {
        match self.owed {
            // Nobody owes a turn before the final round: the players still in the game are
            // worked out only then.
            Some(owed) if owed & self.active_mask() == 0 => {
                let cause = if self.tie_break {
                    BattleCause::TieBreak
                } else {
                    BattleCause::Final
                };
                self.final_battle(cause, outside);
            }
            _ => self.next_turn(outside),
        }
    }

    fn next_turn<O: Outside>(&mut self, outside: &mut O) {
        if self.turn_number >= super::MAX_TURNS && self.owed.is_none() {
            self.emit(
                Event::TurnLimit {
                    turns: self.turn_number,
                },
                outside.sink(),
            );
        }
        let n = self.order.len();
        for step in 1..=n {
            let i = (self.cursor + step) % n;
            let p = self.order[i];
            if self.racing(p) {
                self.cursor = i;
                self.begin_turn(p, outside);
                return;
            }
        }
    }

    /// The Final Battle or the tie-break battle, then the result by HQ HP (R2.8, R2.9).
    fn final_battle<O: Outside>(&mut self, cause: BattleCause, outside: &mut O) {
        self.fight(cause, outside);
        if self.result().is_some() || self.hook_failure.is_some() {
            return;
        }
        // R8.2.5 (4): after the extra battle of a three-player tie, the tied players still at
        // the top share the victory; any other tie is a draw.
        let tied = if self.tie_break && self.three_player_tie() {
            self.shared(self.tied_at_the_top())
        } else {
            GameResult::Draw {
                reason: DrawReason::EqualHp,
            }
        };
        if self.rule_points.contains(RulePoints::CHECK) {
            // The rules judge the end of the game before HQ hit points do (a scored variant,
            // say): their verdict ends it, tie-break or not.
            let provisional = self.by_hit_points().unwrap_or(tied);
            let asked = self.ask_check(Some(provisional), outside.hooks());
            if self.take_verdict(asked, outside) {
                return;
            }
        }
        // The rules' `check` has seen these results just above: they end the game as they are.
        if let Some(result) = self.by_hit_points() {
            self.emit(
                Event::GameEnded {
                    result,
                    by_rule: None,
                },
                outside.sink(),
            );
        } else if self.three_player_tie() && !self.tie_break {
            // R8.2.5 (1): whoever would lose is out of the race, their army left on the board;
            // (2) the tied players play one more turn each, from the player after the one who
            // ended the game; (3) then one more battle, in which every unit acts.
            let top = self.tied_at_the_top();
            let behind: Vec<_> = self
                .field
                .players()
                .filter(|p| self.racing(*p) && top & 1 << p.index() == 0)
                .collect();
            for player in behind {
                self.emit(Event::OutOfRace { player }, outside.sink());
            }
            self.emit(Event::TieBreak, outside.sink());
            self.next_turn(outside);
        } else if self.rules.tie_breaker == TieBreaker::ExtraTurnThenBattle && !self.tie_break {
            // R2.9.5 and Q3: one more turn each, in the usual order, then one more battle.
            self.emit(Event::TieBreak, outside.sink());
            self.next_turn(outside);
        } else {
            self.emit(
                Event::GameEnded {
                    result: tied,
                    by_rule: None,
                },
                outside.sink(),
            );
        }
    }

    /// The play area is full (R4.11): a battle that ends the turn, or with the extended board and
    /// `extended_board_trigger = final_battle`, the Final Battle (R8.7, Q9).
    fn board_full<O: Outside>(&mut self, outside: &mut O) {
        let extended = self.field.shape().main_area() != self.field.shape().all();
        if extended && self.rules.extended_board_trigger == ExtendedTrigger::FinalBattle {
            let player = self.state.turn.player();
            self.turn_over(player, outside);
            self.final_battle(BattleCause::Final, outside);
        } else {
            self.battle_ends_turn(BattleCause::BoardFull, outside);
        }
    }

    /// A battle during a turn ends that turn, when it starts or after it (R4.2,
    /// `battle_turn_end`); battles repeat while the board stays full (R4.13).
    fn battle_ends_turn<O: Outside>(&mut self, cause: BattleCause, outside: &mut O) {
        let player = self.state.turn.player();
        let at_start = self.rules.battle_turn_end == BattleTurnEnd::AtStart;
        if at_start {
            self.turn_over(player, outside);
        }
        self.battles_while_full(cause, outside);
        if self.result().is_some() {
            return;
        }
        if !at_start {
            self.turn_over(player, outside);
        }
        if !self.rules_end_between_turns(outside) {
            self.after_turn(outside);
        }
    }

    /// One battle, then more while the board is full and `repeat_battle_while_full` says so,
    /// stopped by `battle_loop_guard` (R4.13, R9.5.3, Q7).
    fn battles_while_full<O: Outside>(&mut self, first: BattleCause, outside: &mut O) {
        let mut cause = first;
        let mut fought = 0u32;
        loop {
            let before = self.field.clone();
            self.fight(cause, outside);
            if self.result().is_some() {
                return;
            }
            fought += 1;
            let by_full_board = matches!(cause, BattleCause::BoardFull | BattleCause::StillFull);
            if by_full_board
                && self.rules.battle_loop_guard == BattleLoopGuard::NoRemovalDraw
                && self.field.occupied() == before.occupied()
            {
                // R9.5.3: a full-board battle that removes no unit ends the game in a draw.
                self.draw_game(DrawReason::BattleLoop, outside);
                return;
            }
            if !(self.rules.repeat_battle_while_full && self.field.main_area_full()) {
                return;
            }
            match self.rules.battle_loop_guard {
                BattleLoopGuard::DrawIfNoChange if self.field == before => {
                    self.draw_game(DrawReason::BattleLoop, outside);
                    return;
                }
                BattleLoopGuard::StopAfterN
                    if fought >= u32::from(self.rules.battle_loop_limit) =>
                {
                    return;
                }
                _ if fought >= MAX_REPEATS => return,
                _ => {}
            }
            cause = BattleCause::StillFull;
        }
    }

    fn draw_game<O: Outside>(&mut self, reason: DrawReason, outside: &mut O) {
        self.end_game(GameResult::Draw { reason }, outside);
    }

    /// One battle; then the game ends if it destroyed an HQ that decides it (R2.9.1). The game
    /// rules' `battle_started` hooks run before it; after it, their `destroyed` and `hq_damaged`
    /// hooks for what it cost, their `battle_ended` hooks, and their `check`.
    fn fight<O: Outside>(&mut self, cause: BattleCause, outside: &mut O) {
        self.emit(Event::BattleCalled { cause }, outside.sink());
        if !self.rule_points.is_empty() {
            self.rule_effects(RulePoints::BATTLE_STARTED, outside);
            if self.hook_failure.is_some() || self.result().is_some() {
                return;
            }
        }
        let mark = self.losses.len();
        let (hooks, decider, sink) = outside.parts();
        // Each battle's scripts draw from a seed of the game and the battle's number.
        hooks.reseed(battle_seed(self.hook_seed, self.battles));
        let (field, _, ctx, mut out) = self.piled(sink);
        let report = match battle::resolve(field, ctx, hooks, decider, &mut out) {
            Ok(report) => report,
            Err(e) => {
                // The battle left the board as it was; the action that called it is refused.
                self.hook_failure.get_or_insert(e);
                return;
            }
        };
        if !self.rule_points.is_empty() {
            if self.rule_points.intersects(RulePoints::LOSSES) {
                self.note_battle_losses(mark, &report);
                self.rule_losses(outside);
            }
            self.rule_effects(RulePoints::BATTLE_ENDED, outside);
            if self.hook_failure.is_some() || self.result().is_some() {
                return;
            }
        }
        if let Some(result) = self.decisive() {
            self.end_game(result, outside);
        } else if !self.rule_points.is_empty() {
            self.rules_may_end(outside);
        }
    }
}

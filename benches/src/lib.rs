//! Benchmark positions and games: full 19-hex standard boards built from the base armies of
//! `mods/base`, and whole random-vs-random games, shared by the criterion benches
//! (`benches/battle.rs`, `benches/game.rs`) and the tests below.
//!
//! Every position is a checked [`Battlefield`] with the [`Catalog`] and [`Rules`] (the `v3`
//! preset) it is fought with. Building one reads the army files, so do it once, outside the timed
//! loop, and clone the battlefield for every battle.

#![warn(missing_docs)]

pub mod allocations;
pub mod mods;
pub mod portal;
pub mod rule_games;

#[cfg(test)]
use hexforge_bots::RandomBot;
use hexforge_core::game::{Player, play_out};
use hexforge_core::{
    Battlefield, BoardShape, Catalog, Dir, Game, GameResult, GameSetup, Hex, PlayerSetup, Rng,
    Rules, Seat, SeatSetup, Setup, TileSetup,
};
use hexforge_script::{Limits, ScriptHost};
use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::Arc;

/// One tile of a layout: `army/tile`, owner seat, axial `q`, `r`, facing (0 N ... 5 NW).
type Spot = (&'static str, u8, i32, i32, u8);

/// Moloch (player 1, top, facing south) against Outpost (player 2, bottom, facing north).
///
/// Every hex is taken. What the battle exercises (59 events, phases 4 to 0, 9 tiles removed):
/// - both HQs; the Moloch HQ aura (+1 ranged) on the Stormtrooper and Armored Guard; the Outpost
///   HQ aura (an extra attack) on the Mobile Armor, Exterminator and HMG; the Outpost HQ is hit by
///   the Gauss Cannon's piercing shot;
/// - modules: Moloch Scout (+1 initiative, also on its HQ, which then acts in phase 1), Officer,
///   Mother Module (an extra attack for the Stormtrooper), Medic; Outpost Scout, Officer, Medic
///   and Saboteur (-1 initiative on the Gauss Cannon);
/// - a Medic on each side absorbs an attack on a connected unit (Stormtrooper, Outpost Scout);
/// - the Moloch Netter nets the Outpost Commando, which is freed when the Netter dies;
/// - armor (the Armored Guard's front stops a wound; the Juggernaut is armored too but dies to
///   melee first), toughness, a piercing shot, and shots passing over friendly tiles;
/// - initiative values from 4 down to 0 and multi-phase units: Mobile Armor (3,2 plus Scout and
///   extra attack: phases 4, 3, 2), HMG (2,1 plus extra attack: 2, 1, 0), Exterminator (2, 1).
const MOLOCH_VS_OUTPOST: [Spot; 19] = [
    // Moloch, player 0.
    ("moloch/hq", 0, 0, -1, 3),
    ("moloch/juggernaut", 0, 0, 0, 3),
    ("moloch/netter", 0, 1, -1, 3),
    ("moloch/stormtrooper", 0, -1, 0, 3),
    ("moloch/mother_module", 0, -2, 0, 2),
    ("moloch/medic", 0, -1, -1, 3),
    ("moloch/scout", 0, 0, -2, 3),
    ("moloch/armored_guard", 0, 1, -2, 3),
    ("moloch/officer", 0, 2, -2, 0),
    ("moloch/gauss_cannon", 0, 2, -1, 4),
    // Outpost, player 1.
    ("outpost/hq", 1, 0, 1, 0),
    ("outpost/commando", 1, 1, 0, 0),
    ("outpost/mobile_armor", 1, -1, 1, 1),
    ("outpost/exterminator", 1, 1, 1, 0),
    ("outpost/officer", 1, 0, 2, 0),
    ("outpost/heavy_machine_gun", 1, -1, 2, 0),
    ("outpost/scout", 1, -2, 1, 2),
    ("outpost/medic", 1, -2, 2, 1),
    ("outpost/saboteur", 1, 2, 0, 0),
];

/// Borgo (player 1, top) against Hegemony (player 2, bottom).
///
/// Every hex is taken (47 events, phases 5 to 0, 7 tiles removed). Neither army has a
/// multi-phase unit or an extra attack, so this is the nets-and-melee position: the Borgo Netter
/// nets the Hegemony Net Master (whose own nets then do nothing), the Hegemony Netter nets a
/// Butcher until the Super Mutant kills it and the Butcher is freed mid-battle; a Borgo Medic
/// absorbs the Gladiator's attack on an Officer; Borgo Officer, Senior Officer and Scout (also on
/// the Borgo HQ); a Hegemony Quartermaster (asked each time its unit acts; the default policy
/// declines), Boss and Scout on the Hegemony HQ (it acts in phase 2), Officer II; armored tiles
/// (Super Mutant, Gladiator) that only melee reaches; the Hegemony HQ is hit by the Super Mutant.
const BORGO_VS_HEGEMONY: [Spot; 19] = [
    // Borgo, player 0.
    ("borgo/hq", 0, 0, -1, 3),
    ("borgo/super_mutant", 0, 0, 0, 3),
    ("borgo/netter", 0, 1, -1, 3),
    ("borgo/butcher", 0, -1, 0, 4),
    ("borgo/medic", 0, -1, -1, 3),
    ("borgo/officer", 0, -2, 0, 2),
    ("borgo/scout", 0, 0, -2, 3),
    ("borgo/assassin", 0, 1, -2, 3),
    ("borgo/senior_officer", 0, 2, -2, 3),
    ("borgo/mutant", 0, 2, -1, 4),
    // Hegemony, player 1.
    ("hegemony/hq", 1, 0, 1, 0),
    ("hegemony/net_master", 1, 1, 0, 0),
    ("hegemony/netter", 1, -1, 1, 0),
    ("hegemony/universal_soldier", 1, 1, 1, 0),
    ("hegemony/quartermaster", 1, 2, 0, 4),
    ("hegemony/gladiator", 1, -2, 1, 0),
    ("hegemony/officer_2", 1, -2, 2, 0),
    ("hegemony/boss", 1, -1, 2, 1),
    ("hegemony/scout", 1, 0, 2, 1),
];

/// The folder of the base mod (`mods/base` at the workspace root).
pub fn base_mod_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../mods/base")
}

/// A catalog of the four base armies, loaded from `mods/base`.
///
/// # Panics
/// If the base mod does not load: the benches have nothing to measure without it.
pub fn base_catalog() -> Catalog {
    base_content().0
}

/// The base catalog with every ability bound to its Lua script, and the script host that runs
/// them (the hooks to resolve battles and games with).
///
/// # Panics
/// If the base mod or its scripts do not load.
pub fn base_content() -> (Catalog, ScriptHost) {
    let loaded = hexforge_script::load(&[base_mod_dir()], Limits::default());
    let m = loaded.mods;
    assert!(m.problems.is_empty(), "base mod: {}", m.problems);
    (m.catalog, loaded.scripts)
}

fn build(layout: &[Spot]) -> (Catalog, Rules, Battlefield) {
    let catalog = base_catalog();
    let rules = Rules::default();
    let tiles = layout
        .iter()
        .map(|&(id, owner, q, r, facing)| TileSetup {
            tile: catalog
                .find(id)
                .unwrap_or_else(|| panic!("no tile `{id}` in the base mod")),
            owner: Seat::new(owner),
            hex: Hex::new(q, r),
            facing: Dir::new(facing),
            wounds: 0,
        })
        .collect();
    let field = duel(&catalog, &rules, tiles);
    (catalog, rules, field)
}

/// A standard 19-hex board of two players on two teams with the rules' HQ HP, holding `tiles`.
///
/// # Panics
/// If the tiles do not make a legal battlefield.
fn duel(catalog: &Catalog, rules: &Rules, tiles: Vec<TileSetup>) -> Battlefield {
    let setup = Setup {
        shape: BoardShape::standard(),
        players: (0..2)
            .map(|team| PlayerSetup {
                team,
                hq_hp: i32::from(rules.hq_hp),
            })
            .collect(),
        tiles,
    };
    Battlefield::new(setup, catalog).unwrap_or_else(|e| panic!("benchmark board: {e}"))
}

/// The main benchmark position: a full 19-hex standard board, Moloch against Outpost, with both
/// HQs, modules, Medics, a netted unit, armor and multi-phase units (see the layout's comment in
/// the source). Rules are the `v3` preset.
///
/// # Panics
/// If the base mod does not load or the layout is not a legal battlefield.
pub fn full_board_battle() -> (Catalog, Rules, Battlefield) {
    build(&MOLOCH_VS_OUTPOST)
}

/// A second full 19-hex position, Borgo against Hegemony: nets on both sides, a unit freed
/// mid-battle, a Quartermaster, armor; no multi-phase units (neither army has one).
///
/// # Panics
/// If the base mod does not load or the layout is not a legal battlefield.
pub fn borgo_vs_hegemony_battle() -> (Catalog, Rules, Battlefield) {
    build(&BORGO_VS_HEGEMONY)
}

/// The folder of the attack-event bench's mod (`benches/fixtures/listeners`): 35 fighters whose
/// `attack_resolved` and `attacked` hooks read the attack's outcome and return.
pub fn listeners_mod_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/listeners")
}

/// A full 19-hex board of the `listeners` army against itself: two HQs and 17 fighters in
/// alternating ownership, every unit with both attack-event hooks, so a battle makes a few dozen
/// attack-event calls. The script host comes with it.
///
/// # Panics
/// If the fixture mod does not load or the board is not a legal battlefield.
pub fn attack_event_battle() -> (Catalog, Rules, Battlefield, ScriptHost) {
    let loaded = hexforge_script::load(&[listeners_mod_dir()], Limits::default());
    let catalog = loaded.mods.catalog;
    assert!(
        loaded.mods.problems.is_empty(),
        "listeners mod: {}",
        loaded.mods.problems
    );
    let rules = Rules::default();
    let shape = BoardShape::standard();
    let hq = catalog.find("listeners/hq").expect("the listeners HQ");
    let fighter = catalog
        .find("listeners/fighter")
        .expect("the listeners fighter");
    let hqs = [Hex::new(0, -2), Hex::new(0, 2)];
    let tiles = shape
        .hexes()
        .iter()
        .enumerate()
        .map(|(i, &hex)| {
            let owner = match hqs.iter().position(|h| *h == hex) {
                Some(p) => p as u8,
                None => (i % 2) as u8,
            };
            TileSetup {
                tile: if hqs.contains(&hex) { hq } else { fighter },
                owner: Seat::new(owner),
                hex,
                facing: Dir::new((i % 6) as u8),
                wounds: 0,
            }
        })
        .collect();
    let field = duel(&catalog, &rules, tiles);
    (catalog, rules, field, loaded.scripts)
}

/// The four base armies, in the order [`PAIRINGS`] uses.
pub const ARMIES: [&str; 4] = ["moloch", "outpost", "borgo", "hegemony"];

/// Every ordered pairing of two different base armies (12): the game bench cycles through them.
pub const PAIRINGS: [[&str; 2]; 12] = [
    ["moloch", "outpost"],
    ["moloch", "borgo"],
    ["moloch", "hegemony"],
    ["outpost", "moloch"],
    ["outpost", "borgo"],
    ["outpost", "hegemony"],
    ["borgo", "moloch"],
    ["borgo", "outpost"],
    ["borgo", "hegemony"],
    ["hegemony", "moloch"],
    ["hegemony", "outpost"],
    ["hegemony", "borgo"],
];

/// What whole games are played with: the base catalog and the `v3` preset, shared by every game.
#[derive(Debug)]
pub struct GameBench {
    /// The four base armies, with every ability bound; each game shares it.
    pub catalog: Arc<Catalog>,
    /// The `v3` preset every game is played with.
    pub rules: Arc<Rules>,
    /// The base abilities' scripts.
    scripts: RefCell<ScriptHost>,
}

/// How one random game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// Who won, or why it was a draw.
    pub result: GameResult,
    /// The number of the last turn played (turns count from 1 after the HQs are placed).
    pub turns: u16,
    /// Battles fought in the game, the Final Battle included.
    pub battles: u32,
    /// Each player's HQ hit points at the end, in seat order.
    pub hq_hp: Vec<i32>,
}

impl GameBench {
    /// The base catalog and the `v3` rules.
    ///
    /// # Panics
    /// If the base mod does not load.
    pub fn new() -> Self {
        let (catalog, scripts) = base_content();
        GameBench {
            catalog: Arc::new(catalog),
            rules: Arc::new(Rules::default()),
            scripts: RefCell::new(scripts),
        }
    }

    /// Plays one whole 2-player game of random bots on the standard board, from HQ placement to
    /// the result, with no abilities and events dropped. The game and both bots are seeded from
    /// `seed`, so a seed fixes the whole game.
    ///
    /// # Panics
    /// If the armies are unknown or the engine refuses an action it listed as legal.
    pub fn random_game(&self, armies: [&str; 2], seed: u64) -> GameOutcome {
        self.bot_game("random", armies, seed)
    }

    /// One whole 2-player game of two `bot`s (`hexforge_bots::by_name`) on the standard board,
    /// the game and both bots seeded from `seed`.
    ///
    /// # Panics
    /// If the bot or an army is unknown, or the engine refuses an action it listed as legal.
    fn bot_game(&self, bot: &str, armies: [&str; 2], seed: u64) -> GameOutcome {
        let mut seeds = Rng::seeded(seed);
        let seats = SeatSetup::each_alone(&armies);
        let setup = GameSetup {
            shape: BoardShape::standard(),
            seats,
            seed: seeds.next_u64(),
            marks: Vec::new(),
        };
        let mut game = Game::new(setup, self.catalog.clone(), self.rules.clone())
            .unwrap_or_else(|e| panic!("{armies:?}: {e}"));
        let mut a = hexforge_bots::by_name(bot, seeds.next_u64()).expect("a known bot");
        let mut b = hexforge_bots::by_name(bot, seeds.next_u64()).expect("a known bot");
        let mut players: [&mut dyn Player; 2] = [a.as_mut(), b.as_mut()];
        let mut scripts = self.scripts.borrow_mut();
        let result = play_out(&mut game, &mut players, &mut *scripts, &mut ())
            .unwrap_or_else(|e| panic!("{armies:?}, seed {seed}: {e}"));
        let field = game.field();
        GameOutcome {
            result,
            turns: game.turn_number(),
            battles: game.battles(),
            hq_hp: field.players().map(|p| field.hq_hp(p)).collect(),
        }
    }

    /// The `n`-th game of the bench: pairing `n % 12`, seed `n`.
    pub fn nth_game(&self, n: u64) -> GameOutcome {
        self.random_game(PAIRINGS[(n % PAIRINGS.len() as u64) as usize], n)
    }

    /// One whole 2-player game of two `bot`s (`random`, `greedy`, `mc`; `hexforge_bots::by_name`)
    /// with the base armies' abilities, as `hexforge balance` plays them: pairing `n % 12`, the
    /// game and both bots seeded from `n`.
    ///
    /// # Panics
    /// If the bot is unknown or the engine refuses an action it listed as legal.
    pub fn nth_bot_game(&self, bot: &str, n: u64) -> GameOutcome {
        self.bot_game(bot, PAIRINGS[(n % PAIRINGS.len() as u64) as usize], n)
    }
}

impl Default for GameBench {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::battle::resolve;
    use hexforge_core::{AttackKind, Context, DefaultPolicy, Event};

    fn fight(
        (catalog, rules, field): &(Catalog, Rules, Battlefield),
    ) -> (Battlefield, hexforge_core::BattleReport, Vec<Event>) {
        let mut field = field.clone();
        let mut log = Vec::new();
        let report = resolve(
            &mut field,
            Context { catalog, rules },
            &mut base_content().1,
            &mut DefaultPolicy,
            &mut log,
        )
        .expect("no hook fails");
        (field, report, log)
    }

    fn check_real_work(position: &(Catalog, Rules, Battlefield)) -> Vec<Event> {
        let (_, _, before) = position;
        assert_eq!(before.shape().len(), 19, "standard board");
        assert_eq!(before.tiles().count(), 19, "every hex holds a tile");
        assert!(before.main_area_full());
        let (after, report, log) = fight(position);
        assert!(report.removed > 0, "the battle removes tiles: {report:?}");
        assert!(after.tiles().count() < 19);
        assert!(
            report.hq_damage.iter().any(|d| *d > 0),
            "an HQ is damaged: {report:?}"
        );
        assert!(after.players().any(|p| after.hq_hp(p) < 20));
        // The `()` sink must see the same battle as the logging one.
        let mut quiet = position.2.clone();
        let quiet_report = resolve(
            &mut quiet,
            Context {
                catalog: &position.0,
                rules: &position.1,
            },
            &mut base_content().1,
            &mut DefaultPolicy,
            &mut (),
        )
        .expect("no hook fails");
        assert_eq!(quiet_report, report);
        assert_eq!(quiet, after);
        log
    }

    #[test]
    fn moloch_vs_outpost_is_full_and_does_real_work() {
        let log = check_real_work(&full_board_battle());
        let has = |f: &dyn Fn(&Event) -> bool| log.iter().any(f);
        assert!(
            has(&|e| matches!(e, Event::Absorbed { .. })),
            "a Medic absorbs"
        );
        assert!(
            has(&|e| matches!(e, Event::Netted { .. })),
            "a unit is netted"
        );
        assert!(
            has(&|e| matches!(e, Event::Attack { armored: true, .. })),
            "armor stops a wound"
        );
        assert!(
            has(&|e| matches!(
                e,
                Event::Attack {
                    kind: AttackKind::Pierce,
                    ..
                }
            )),
            "the Gauss Cannon fires"
        );
        let phases: Vec<u8> = log
            .iter()
            .filter_map(|e| match e {
                Event::Acts { phase, .. } => Some(*phase),
                _ => None,
            })
            .collect();
        assert!(phases.contains(&4) && phases.contains(&0), "{phases:?}");
        // Some unit acts in more than one phase.
        let mut acts: Vec<_> = log
            .iter()
            .filter_map(|e| match e {
                Event::Acts { cell, .. } => Some(*cell),
                _ => None,
            })
            .collect();
        let all = acts.len();
        acts.sort();
        acts.dedup();
        assert!(acts.len() < all, "a multi-phase unit acts twice");
    }

    #[test]
    fn borgo_vs_hegemony_is_full_and_does_real_work() {
        let log = check_real_work(&borgo_vs_hegemony_battle());
        let has = |f: &dyn Fn(&Event) -> bool| log.iter().any(f);
        assert!(
            has(&|e| matches!(e, Event::Absorbed { .. })),
            "a Medic absorbs"
        );
        assert!(
            has(&|e| matches!(e, Event::Netted { .. })),
            "a unit is netted"
        );
        assert!(
            has(&|e| matches!(e, Event::Freed { .. })),
            "a unit is freed"
        );
    }
}

#[cfg(test)]
mod regression {
    use super::*;
    use hexforge_core::battle::{Context, resolve};
    use hexforge_core::{DefaultPolicy, Event};

    /// Events, removals and HQ HP of a position, as measured when the benchmark was written.
    fn outcome((catalog, rules, field): &(Catalog, Rules, Battlefield)) -> (usize, u32, Vec<i32>) {
        let mut field = field.clone();
        let mut log: Vec<Event> = Vec::new();
        let report = resolve(
            &mut field,
            Context { catalog, rules },
            &mut base_content().1,
            &mut DefaultPolicy,
            &mut log,
        )
        .expect("no hook fails");
        (
            log.len(),
            report.removed,
            field.players().map(|p| field.hq_hp(p)).collect(),
        )
    }

    #[test]
    fn optimising_the_resolver_keeps_the_benchmark_outcomes() {
        let (events, removed, hq) = outcome(&full_board_battle());
        assert_eq!((events, removed, hq), (59, 9, vec![20, 19]));
        let (events, removed, hq) = outcome(&borgo_vs_hegemony_battle());
        assert_eq!((events, removed, hq), (47, 7, vec![20, 18]));
    }
}

#[cfg(test)]
mod game_regression {
    use super::*;

    /// Turns, battles and results of the first 48 bench games (every pairing four times), as
    /// measured when the game bench was written. A change of the engine that keeps the rules must
    /// keep them; a rule fix that changes them updates them with the reason in its commit.
    #[test]
    fn optimising_games_keeps_the_seeded_outcomes() {
        let bench = GameBench::new();
        let (mut turns, mut battles, mut won, mut hp) = (0u32, 0u32, [0u32; 3], 0i32);
        for n in 0..48 {
            let g = bench.nth_game(n);
            turns += u32::from(g.turns);
            battles += g.battles;
            hp += g.hq_hp.iter().sum::<i32>();
            match g.result {
                GameResult::Won { team } => won[usize::from(team)] += 1,
                GameResult::Draw { .. } | GameResult::Shared { .. } => won[2] += 1,
            }
        }
        assert_eq!((turns, battles, won, hp), (1256, 228, [23, 16, 9], 1757));
    }

    /// Picks as the bench's random bot does and folds every list of legal actions it is given, and
    /// its pick, into a digest (FNV-1a over the actions' debug text).
    struct Digest<'d> {
        bot: RandomBot,
        digest: &'d std::cell::Cell<u64>,
    }

    impl Digest<'_> {
        fn fold(&self, bytes: &[u8]) {
            let mut h = self.digest.get();
            for b in bytes {
                h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
            }
            self.digest.set(h);
        }
    }

    impl Player for Digest<'_> {
        fn act(
            &mut self,
            game: &Game,
            legal: &hexforge_core::game::LegalActions,
            hooks: &mut dyn hexforge_core::AbilityHooks,
        ) -> usize {
            for a in legal.iter() {
                self.fold(format!("{a:?};").as_bytes());
            }
            let pick = self.bot.act(game, legal, hooks);
            self.fold(format!("pick {pick}/{}\n", legal.len()).as_bytes());
            pick
        }

        fn decide(&mut self, field: &Battlefield, decision: &hexforge_core::Decision<'_>) -> usize {
            self.bot.decide(field, decision)
        }
    }

    /// Every list of legal actions of the first 48 bench games, in order, and every pick, as a
    /// digest taken when the actions were first listed compactly (and checked equal, action by
    /// action, to the lists written out before). An optimisation of the listing must keep it; a
    /// rule fix that changes it updates it with the reason in its commit.
    #[test]
    fn optimising_games_keeps_every_listed_action() {
        let bench = GameBench::new();
        let mut scripts = base_content().1;
        let digest = std::cell::Cell::new(0xcbf2_9ce4_8422_2325);
        for n in 0..48u64 {
            let armies = PAIRINGS[(n % PAIRINGS.len() as u64) as usize];
            let mut seeds = Rng::seeded(n);
            let setup = GameSetup {
                shape: BoardShape::standard(),
                seats: SeatSetup::each_alone(&armies),
                seed: seeds.next_u64(),
                marks: Vec::new(),
            };
            let mut game =
                Game::new(setup, bench.catalog.clone(), bench.rules.clone()).expect("a game");
            let mut a = Digest {
                bot: RandomBot::new(seeds.next_u64()),
                digest: &digest,
            };
            let mut b = Digest {
                bot: RandomBot::new(seeds.next_u64()),
                digest: &digest,
            };
            let mut players: [&mut dyn Player; 2] = [&mut a, &mut b];
            play_out(&mut game, &mut players, &mut scripts, &mut ()).expect("a whole game");
        }
        assert_eq!(digest.get(), 0x9d25_7452_c37c_a8a0);
    }
}

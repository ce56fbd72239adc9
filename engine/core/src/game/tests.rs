//! Unit tests of whole games on a small hand-made army.

use super::*;
use crate::battlefield::TileSetup;
use crate::decision::{Decider, Decision, DefaultPolicy, Question};
use crate::event::BattleCause;
use crate::hex::Dir;
use crate::hooks::NoAbilities;
use crate::tile::{InstantEffect, Tile};

/// Army `a`: an HQ, 4 soldiers, 2 Battle tiles, 2 Push tiles (9 tiles). Army `b` is the same.
fn catalog() -> Arc<Catalog> {
    let mut c = Catalog::new();
    for army in ["a", "b"] {
        let mut hq = Tile::new(army, "hq", TileKind::Hq);
        hq.initiative = crate::tile::Initiative::new(&[0]).expect("initiative");
        for e in &mut hq.edges {
            e.melee = 1;
        }
        let mut soldier = Tile::new(army, "soldier", TileKind::Soldier);
        soldier.count = 4;
        soldier.initiative = crate::tile::Initiative::new(&[2]).expect("initiative");
        soldier.edges[0].melee = 1;
        let mut battle = Tile::new(army, "battle", TileKind::Instant);
        battle.count = 2;
        battle.instant = Some(InstantEffect::Battle);
        let mut push = Tile::new(army, "push", TileKind::Instant);
        push.count = 2;
        push.instant = Some(InstantEffect::Push);
        c.add_army(army, army, 9, vec![hq, soldier, battle, push])
            .expect("army");
    }
    Arc::new(c)
}

fn new_game(rules: Rules, seed: u64) -> Game {
    game_of(catalog(), rules, seed)
}

/// A game of armies `a` and `b` of `catalog`, each on a team of its own.
fn game_of(catalog: Arc<Catalog>, rules: Rules, seed: u64) -> Game {
    Game::new(
        GameSetup {
            shape: BoardShape::standard(),
            seats: vec![
                SeatSetup {
                    army: "a".into(),
                    team: 0,
                },
                SeatSetup {
                    army: "b".into(),
                    team: 1,
                },
            ],
            seed,
            marks: Vec::new(),
        },
        catalog,
        Arc::new(rules),
    )
    .expect("game")
}

fn act(g: &mut Game, a: Action) -> Vec<Event> {
    let mut events = Vec::new();
    g.act(&a, &mut NoAbilities, &mut DefaultPolicy, &mut events)
        .unwrap_or_else(|e| panic!("{a:?} refused: {e}"));
    events
}

fn place_hqs(g: &mut Game) {
    let mut legal = LegalActions::new();
    for _ in 0..2 {
        g.legal_actions(&mut legal);
        let hex = if g.current() == Some(Seat::new(0)) {
            Hex::new(0, 2)
        } else {
            Hex::new(0, -2)
        };
        let tile = match legal.get(0).expect("an HQ placement") {
            Action::Place { tile, .. } => tile,
            other => panic!("expected an HQ placement, got {other:?}"),
        };
        act(
            g,
            Action::Place {
                tile,
                hex,
                facing: Dir::N,
            },
        );
    }
}

use crate::hex::Hex;

#[test]
fn opening_turns_draw_one_then_two_then_up_to_three_with_a_discard() {
    // R2.4.1-R2.4.3.
    let mut g = new_game(Rules::default(), 3);
    assert_eq!(g.stage(), Stage::PlaceHq);
    place_hqs(&mut g);
    let first = g.current().expect("a turn");
    assert_eq!(g.hand(first).len(), 1);
    assert_eq!(g.stage(), Stage::Play);
    act(&mut g, Action::EndTurn);
    let second = g.current().expect("a turn");
    assert_ne!(first, second);
    assert_eq!(g.hand(second).len(), 2);
    assert_eq!(g.stage(), Stage::Play);
    act(&mut g, Action::EndTurn);
    assert_eq!(g.hand(first).len(), 3, "kept 1, drew 2");
    assert_eq!(g.stage(), Stage::Discard);
    let tile = g.hand(first)[0];
    let err = g
        .check(&Action::Place {
            tile,
            hex: Hex::ORIGIN,
            facing: Dir::N,
        })
        .expect_err("discard first");
    assert_eq!(err, ActionError::DiscardFirst);
    assert!(err.to_string().contains("R2.5.2"));
    act(&mut g, Action::Discard { tile });
    assert_eq!(g.stage(), Stage::Play);
    assert_eq!(g.discard_pile(first), &[tile]);
}

/// A two-player standard board holding `tiles`, both HQs at 20 HP.
fn duel_setup(tiles: Vec<TileSetup>) -> Setup {
    Setup {
        shape: BoardShape::standard(),
        players: vec![
            PlayerSetup { team: 0, hq_hp: 20 },
            PlayerSetup { team: 1, hq_hp: 20 },
        ],
        tiles,
    }
}

/// A position: HQs at [0, 2] and [0, -2], each player's piles as given, `a` to play.
fn position(decks: [Vec<&str>; 2], hands: [Vec<&str>; 2], last_turns: Option<Vec<u8>>) -> Game {
    position_with(catalog(), decks, hands, last_turns)
}

fn position_with(
    cat: Arc<Catalog>,
    decks: [Vec<&str>; 2],
    hands: [Vec<&str>; 2],
    last_turns: Option<Vec<u8>>,
) -> Game {
    let tile = |id: &str| cat.find(id).expect("tile");
    let piles = ["a", "b"]
        .iter()
        .enumerate()
        .map(|(i, army)| Piles {
            army: army.to_string(),
            deck: decks[i]
                .iter()
                .map(|t| tile(&format!("{army}/{t}")))
                .collect(),
            hand: hands[i]
                .iter()
                .map(|t| tile(&format!("{army}/{t}")))
                .collect(),
            discard: Vec::new(),
            reserve: Vec::new(),
        })
        .collect();
    let setup = duel_setup(vec![
        TileSetup {
            tile: tile("a/hq"),
            owner: Seat::new(0),
            hex: Hex::new(0, 2),
            facing: Dir::N,
            wounds: 0,
        },
        TileSetup {
            tile: tile("b/hq"),
            owner: Seat::new(1),
            hex: Hex::new(0, -2),
            facing: Dir::N,
            wounds: 0,
        },
    ]);
    Game::from_position(
        Position {
            setup,
            piles,
            next: Seat::new(0),
            turn_number: 5,
            last_turns: last_turns.map(|v| v.into_iter().map(Seat::new).collect()),
            seed: 0,
            marks: Vec::new(),
            links: Vec::new(),
        },
        cat.clone(),
        Arc::new(Rules::default()),
        &mut NoAbilities,
        &mut (),
    )
    .expect("position")
}

#[test]
fn drawing_the_last_tile_starts_the_final_round_then_the_final_battle() {
    // R2.8.1: a draws its last tile; b plays one last turn; then the Final Battle.
    let mut g = position(
        [vec!["soldier"], vec!["soldier"; 3]],
        [vec![], vec![]],
        None,
    );
    assert!(g.last_tile_drawn());
    let a_turn = act(&mut g, Action::EndTurn);
    assert!(
        !a_turn
            .iter()
            .any(|e| matches!(e, Event::BattleCalled { .. }))
    );
    assert_eq!(g.current(), Some(Seat::new(1)));
    let b = g.hand(Seat::new(1))[0];
    act(&mut g, Action::Discard { tile: b });
    let end = act(&mut g, Action::EndTurn);
    assert!(end.contains(&Event::BattleCalled {
        cause: BattleCause::Final
    }));
    // Equal HP: v3 plays one more turn each, then the tie-break battle (R2.9.5).
    assert!(end.contains(&Event::TieBreak));
    assert_eq!(g.current(), Some(Seat::new(0)));
    act(&mut g, Action::EndTurn);
    let last = act(&mut g, Action::EndTurn);
    assert!(last.contains(&Event::BattleCalled {
        cause: BattleCause::TieBreak
    }));
    assert_eq!(
        g.result(),
        Some(GameResult::Draw {
            reason: crate::event::DrawReason::EqualHp
        })
    );
}

#[test]
fn no_battle_tile_after_a_last_tile_is_drawn() {
    // R2.8.2.
    let g = position(
        [vec!["battle"], vec!["soldier"]],
        [vec![], vec![]],
        Some(vec![0, 1]),
    );
    let battle = g.hand(Seat::new(0))[0];
    let err = g
        .check(&Action::Instant {
            tile: battle,
            target: Target::None,
        })
        .expect_err("refused");
    assert_eq!(err, ActionError::BattleAfterLastTile);
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    assert!(!legal.iter().any(|a| matches!(
        a,
        Action::Instant {
            target: Target::None,
            ..
        }
    )));
}

#[test]
fn a_hand_of_instants_may_be_redrawn_only_before_anything_else() {
    // R2.6 and Q4: discard all, draw as many; not after acting.
    let g = position(
        [
            vec!["battle", "push", "soldier", "soldier"],
            vec!["soldier"],
        ],
        [vec![], vec![]],
        None,
    );
    // Drew battle, push, soldier: not all instants.
    assert_eq!(
        g.check(&Action::Redraw),
        Err(ActionError::NoRedraw(
            "only when every tile you hold is an instant"
        ))
    );
    let mut g2 = position(
        [
            vec!["battle", "push", "battle", "soldier", "soldier", "soldier"],
            vec!["soldier"],
        ],
        [vec![], vec![]],
        None,
    );
    let mut legal = LegalActions::new();
    g2.legal_actions(&mut legal);
    assert_eq!(legal.get(0), Some(Action::Redraw));
    let events = act(&mut g2, Action::Redraw);
    assert!(events.contains(&Event::BadDraw {
        player: Seat::new(0)
    }));
    assert_eq!(g2.hand(Seat::new(0)).len(), 3);
    assert_eq!(g2.discard_pile(Seat::new(0)).len(), 3);
    // Three instants again, but the mandatory discard comes first: after it, no redraw.
    let mut g3 = position(
        [vec!["battle", "push", "battle", "soldier"], vec!["soldier"]],
        [vec![], vec![]],
        None,
    );
    g3.legal_actions(&mut legal);
    assert_eq!(legal.get(0), Some(Action::Redraw));
    let battle = g3.hand(Seat::new(0))[0];
    act(&mut g3, Action::Discard { tile: battle });
    assert_eq!(g3.hand(Seat::new(0)).len(), 2);
    g3.legal_actions(&mut legal);
    assert!(!legal.contains(&Action::Redraw), "{legal:?}");
    assert_eq!(
        g3.check(&Action::Redraw),
        Err(ActionError::NoRedraw(
            "only before anything else is done in the turn"
        ))
    );
}

/// Records who was asked what.
struct Recorder(Vec<(Question, Seat, usize)>);

impl Decider for Recorder {
    fn decide(&mut self, _field: &Battlefield, d: &Decision<'_>) -> usize {
        self.0.push((d.question, d.player, d.options.len()));
        d.options.len() - 1
    }
}

#[test]
fn the_pushed_units_owner_picks_where_it_goes() {
    // R5.3.3: a's soldier at [0, 1] pushes b's soldier at [0, 0]; three hexes are free.
    let cat = catalog();
    let mut g = position(
        [vec!["soldier"; 3], vec!["soldier"]],
        [vec!["push"], vec![]],
        None,
    );
    let soldier = |army: &str| cat.find(&format!("{army}/soldier")).expect("tile");
    // Put the two soldiers on the board through the game itself.
    let hand = g.hand(Seat::new(0)).to_vec();
    act(&mut g, Action::Discard { tile: hand[1] });
    act(
        &mut g,
        Action::Place {
            tile: soldier("a"),
            hex: Hex::new(0, 1),
            facing: Dir::N,
        },
    );
    act(&mut g, Action::EndTurn);
    act(
        &mut g,
        Action::Place {
            tile: soldier("b"),
            hex: Hex::ORIGIN,
            facing: Dir::S,
        },
    );
    act(&mut g, Action::EndTurn);
    let push = g
        .hand(Seat::new(0))
        .iter()
        .copied()
        .find(|t| cat.get(*t).id == "push")
        .expect("push in hand");
    if g.stage() == Stage::Discard {
        let other = g
            .hand(Seat::new(0))
            .iter()
            .copied()
            .find(|t| *t != push)
            .expect("another tile");
        act(&mut g, Action::Discard { tile: other });
    }
    let mut rec = Recorder(Vec::new());
    let mut events = Vec::new();
    g.act(
        &Action::Instant {
            tile: push,
            target: Target::Push {
                pusher: Hex::new(0, 1),
                target: Hex::ORIGIN,
            },
        },
        &mut NoAbilities,
        &mut rec,
        &mut events,
    )
    .expect("push");
    assert_eq!(rec.0, vec![(Question::PushTo, Seat::new(1), 3)]);
    assert!(g.field().at_hex(Hex::ORIGIN).is_none(), "pushed away");
}

#[test]
fn illegal_actions_say_why() {
    let g = position(
        [vec!["soldier"; 3], vec!["soldier"]],
        [vec!["push"], vec![]],
        None,
    );
    let cat = catalog();
    let hand = g.hand(Seat::new(0)).to_vec();
    let b_tile = cat.find("b/soldier").expect("tile");
    let cases = [
        (Action::Discard { tile: b_tile }, "is not in your hand"),
        (
            Action::Place {
                tile: hand[0],
                hex: Hex::ORIGIN,
                facing: Dir::N,
            },
            "discard one",
        ),
    ];
    for (a, text) in cases {
        let e = g.check(&a).expect_err(text);
        assert!(e.to_string().contains(text), "{e} should say {text}");
    }
}

/// R7.1.3, R7.4.4: a hijacked Transport carries the hijacker's units, so their Mobility moves
/// must be listed even though no tile of the player's own army gives Mobility.
#[test]
fn units_carried_by_a_hijacked_transport_are_listed_as_movable() {
    let mut c = Catalog::new();
    let linked = |mut t: Tile| {
        for e in &mut t.edges {
            e.link = true;
        }
        t
    };
    let hq = |army: &str| {
        let mut hq = Tile::new(army, "hq", TileKind::Hq);
        hq.initiative = crate::tile::Initiative::new(&[0]).expect("initiative");
        hq
    };
    let mut hacker = linked(Tile::new("a", "hacker", TileKind::Module));
    hacker.module.hijack = true;
    let mut carrier = linked(Tile::new("b", "carrier", TileKind::Module));
    carrier.module.mobility = true;
    c.add_army("a", "a", 2, vec![hq("a"), hacker])
        .expect("army a");
    c.add_army("b", "b", 2, vec![hq("b"), carrier])
        .expect("army b");
    let cat = Arc::new(c);
    let tile = |id: &str| cat.find(id).expect("tile");
    let at = |id: &str, owner: u8, q: i32, r: i32| TileSetup {
        tile: tile(id),
        owner: Seat::new(owner),
        hex: Hex::new(q, r),
        facing: Dir::N,
        wounds: 0,
    };
    let setup = duel_setup(vec![
        at("a/hq", 0, 0, 2),
        at("b/hq", 1, 0, -2),
        at("a/hacker", 0, 0, 0),
        at("b/carrier", 1, 0, -1),
    ]);
    let piles = ["a", "b"]
        .iter()
        .map(|army| Piles {
            army: army.to_string(),
            deck: Vec::new(),
            hand: Vec::new(),
            discard: Vec::new(),
            reserve: Vec::new(),
        })
        .collect();
    let g = Game::from_position(
        Position {
            setup,
            piles,
            next: Seat::new(0),
            turn_number: 5,
            last_turns: None,
            seed: 0,
            marks: Vec::new(),
            links: Vec::new(),
        },
        cat.clone(),
        Arc::new(Rules::default()),
        &mut NoAbilities,
        &mut (),
    )
    .expect("position");
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    let moves: Vec<_> = legal
        .iter()
        .filter(|a| matches!(a, Action::Move { unit, .. } if *unit == Hex::ORIGIN))
        .collect();
    assert!(!moves.is_empty(), "the hacker is carried: {legal:?}");
    for m in moves {
        assert_eq!(g.check(&m), Ok(()), "{m:?}");
    }
}

/// The views and movers a game keeps between actions always equal those of its board as it is.
#[test]
fn kept_views_always_match_the_board() {
    let mut rng = crate::rng::Rng::seeded(11);
    let mut legal = LegalActions::new();
    for seed in 0..40 {
        let mut g = new_game(Rules::default(), seed);
        let mut steps = 0;
        while g.current().is_some() && steps < 2_000 {
            g.legal_actions(&mut legal);
            let a = legal.get(rng.below(legal.len())).expect("listed");
            act(&mut g, a);
            // Views and movers kept through an action must still be those of the board.
            if let Some(kept) = g.views.get() {
                assert_eq!(
                    *kept,
                    Views::new(&g.field, g.context()),
                    "seed {seed}: {a:?}"
                );
            }
            if let Some(kept) = g.movers.get() {
                assert_eq!(
                    *kept,
                    Movers::of(&g.field, &g.catalog),
                    "seed {seed}: {a:?}"
                );
            }
            steps += 1;
        }
        assert!(g.result().is_some(), "seed {seed} ends");
    }
}

/// A three-player free for all under the 2025 rules (`ffa3_tie_procedure =
/// extra_turns_then_battle_share`, R8.2.5) in its final round: HQs at [0, 2], [0, -2] and
/// [2, -2] (none adjacent) with `hp`, empty piles, `next` to play and everyone owing a last
/// turn; `tiles` more on the board, and `cat` the catalog (armies a, b, a).
fn three_tied(cat: Arc<Catalog>, hp: [i32; 3], next: u8, tiles: Vec<TileSetup>) -> Game {
    let tile = |id: &str| cat.find(id).expect("tile");
    let armies = ["a", "b", "a"];
    let hexes = [Hex::new(0, 2), Hex::new(0, -2), Hex::new(2, -2)];
    let mut all: Vec<TileSetup> = (0..3)
        .map(|i| TileSetup {
            tile: tile(&format!("{}/hq", armies[i])),
            owner: Seat::new(i as u8),
            hex: hexes[i],
            facing: Dir::N,
            wounds: 0,
        })
        .collect();
    all.extend(tiles);
    let mut rules = Rules::default();
    rules.ffa3_tie_procedure = crate::rules::Ffa3Tie::ExtraTurnsThenBattleShare;
    Game::from_position(
        Position {
            setup: Setup {
                shape: BoardShape::standard(),
                players: (0..3)
                    .map(|i| PlayerSetup {
                        team: i as u8,
                        hq_hp: hp[i],
                    })
                    .collect(),
                tiles: all,
            },
            piles: armies
                .iter()
                .map(|a| Piles {
                    army: a.to_string(),
                    ..Piles::default()
                })
                .collect(),
            next: Seat::new(next),
            turn_number: 20,
            last_turns: Some((0..3).map(Seat::new).collect()),
            seed: 0,
            marks: Vec::new(),
            links: Vec::new(),
        },
        cat,
        Arc::new(rules),
        &mut NoAbilities,
        &mut (),
    )
    .expect("position")
}

/// Ends the turns of `seats` in order, checking each is the one to play; the events of the last.
fn end_turns(g: &mut Game, seats: &[u8]) -> Vec<Event> {
    let mut last = Vec::new();
    for s in seats {
        assert_eq!(g.current(), Some(Seat::new(*s)), "{s} to play");
        last = act(g, Action::EndTurn);
    }
    last
}

/// R8.2.5 (1), (2), (4): two players tie at the top after the Final Battle; the third, who
/// would lose, is out of the race and plays no more; the tied players play one more turn each,
/// starting after the player who ended the game (skipping the one out); still tied after the
/// extra battle, they share the victory.
#[test]
fn a_three_player_tie_puts_the_loser_out_and_the_tied_players_share_the_victory() {
    // Seat 1 plays first, so seat 0 ends the game; seat 1 would lose.
    let mut g = three_tied(catalog(), [15, 10, 15], 1, Vec::new());
    let end = end_turns(&mut g, &[1, 2, 0]);
    assert!(end.contains(&Event::BattleCalled {
        cause: BattleCause::Final
    }));
    let out = end
        .iter()
        .position(|e| {
            *e == Event::OutOfRace {
                player: Seat::new(1),
            }
        })
        .expect("seat 1 is out of the race");
    let tie = end.iter().position(|e| *e == Event::TieBreak).expect("tie");
    assert!(out < tie, "{end:?}");
    assert!(g.racing(Seat::new(0)) && g.racing(Seat::new(2)));
    assert!(!g.racing(Seat::new(1)) && g.active(Seat::new(1)));
    assert_eq!(
        g.field().hq_hp(Seat::new(1)),
        10,
        "the HQ stays, its HP too"
    );
    assert_eq!(g.last_turns(), Some(vec![Seat::new(0), Seat::new(2)]));
    // After seat 0 comes seat 1, who is out: seat 2 plays first, then seat 0.
    let last = end_turns(&mut g, &[2, 0]);
    assert!(last.contains(&Event::BattleCalled {
        cause: BattleCause::TieBreak
    }));
    assert_eq!(g.result(), Some(GameResult::Shared { teams: 0b101 }));
}

/// R8.2.5 (3): the extra battle is fought by every unit on the board, the army of the player out
/// of the race included; here its soldier, next to seat 0's HQ, breaks the tie for seat 2.
#[test]
fn the_army_of_the_player_out_of_the_race_fights_the_extra_battle() {
    let mut cat = Catalog::clone(&catalog());
    cat.edit_tiles(|_, t| {
        if t.army == "b" && t.id == "soldier" {
            t.toughness = 5;
        }
    });
    let cat = Arc::new(cat);
    let soldier = TileSetup {
        tile: cat.find("b/soldier").expect("tile"),
        owner: Seat::new(1),
        hex: Hex::new(0, 1),
        facing: Dir::S,
        wounds: 0,
    };
    // The Final Battle costs seat 0 one HP: 15 all against 15, seat 1 far behind.
    let mut g = three_tied(cat, [16, 10, 15], 0, vec![soldier]);
    let end = end_turns(&mut g, &[0, 1, 2]);
    assert_eq!(g.field().hq_hp(Seat::new(0)), 15);
    assert!(end.contains(&Event::OutOfRace {
        player: Seat::new(1)
    }));
    end_turns(&mut g, &[0, 2]);
    assert_eq!(
        g.field().hq_hp(Seat::new(0)),
        14,
        "the soldier struck again"
    );
    assert!(
        g.field()
            .at(g.field().shape().cell(Hex::new(0, 1)).expect("hex"))
            .is_some()
    );
    assert_eq!(g.result(), Some(GameResult::Won { team: 2 }));
}

/// All three tied: nobody would lose, so nobody is out; everyone plays one more turn, and the
/// players still tied at the top after the extra battle share the victory.
#[test]
fn three_equal_players_all_play_on_and_share() {
    let mut g = three_tied(catalog(), [12, 12, 12], 0, Vec::new());
    let end = end_turns(&mut g, &[0, 1, 2]);
    assert!(!end.iter().any(|e| matches!(e, Event::OutOfRace { .. })));
    assert!(end.contains(&Event::TieBreak));
    end_turns(&mut g, &[0, 1, 2]);
    assert_eq!(g.result(), Some(GameResult::Shared { teams: 0b111 }));
}

/// Without the option, a three-player tie follows R2.9.5 (everyone plays on, still equal is a
/// draw); and the players out of the race are part of the state hash.
#[test]
fn without_the_option_a_three_player_tie_is_the_standard_one_and_out_players_are_hashed() {
    let mut g = three_tied(catalog(), [15, 10, 15], 1, Vec::new());
    let plain = Game {
        rules: Arc::new(Rules::default()),
        ..g.clone()
    };
    let mut plain = plain;
    let end = end_turns(&mut plain, &[1, 2, 0]);
    assert!(!end.iter().any(|e| matches!(e, Event::OutOfRace { .. })));
    end_turns(&mut plain, &[1, 2, 0]);
    assert_eq!(
        plain.result(),
        Some(GameResult::Draw {
            reason: crate::event::DrawReason::EqualHp
        })
    );
    let before = g.state_hash();
    let mut out = g.clone();
    out.out = 0b010;
    assert_ne!(out.state_hash(), before);
    end_turns(&mut g, &[1, 2, 0]);
    assert_eq!(g.out, 0b010);
}

/// Ability hooks whose `plan_attacks` always fails.
struct FailingHooks;

impl crate::hooks::AbilityHooks for FailingHooks {
    fn plan_attacks(
        &mut self,
        _ctx: &crate::hooks::HookContext<'_>,
        _plan: &mut crate::hooks::AttackPlan,
        _decider: &mut dyn Decider,
        _fx: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), crate::hooks::HookError> {
        Err(crate::hooks::HookError {
            message: "boom".into(),
        })
    }
}

#[test]
fn a_failing_ability_hook_refuses_the_action_and_leaves_the_game_unchanged() {
    // Army a's soldiers carry an ability with a `plan_attacks` hook.
    let mut cat = Catalog::clone(&catalog());
    cat.edit_tiles(|_, t| {
        if t.army == "a" && t.id == "soldier" {
            let mut ability = crate::tile::AbilityRef::new("probe", Default::default());
            ability.points = crate::hooks::HookPoints::PLAN_ATTACKS;
            t.abilities = vec![ability];
        }
    });
    let cat = Arc::new(cat);
    let mut g = position_with(
        cat.clone(),
        [vec!["soldier"; 3], vec!["soldier"; 3]],
        [vec!["soldier", "battle"], vec![]],
        None,
    );
    let soldier = cat.find("a/soldier").expect("soldier");
    let battle = cat.find("a/battle").expect("battle");
    // The turn drew a third tile: the mandatory discard first (R2.5.2).
    g.act(
        &Action::Discard { tile: soldier },
        &mut FailingHooks,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect("discard");
    g.act(
        &Action::Place {
            tile: soldier,
            hex: Hex::new(0, -1),
            facing: Dir::N,
        },
        &mut FailingHooks,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect("placing calls no hook");
    let before = g.clone();
    let mut events = Vec::new();
    let err = g
        .act(
            &Action::Instant {
                tile: battle,
                target: Target::None,
            },
            &mut FailingHooks,
            &mut DefaultPolicy,
            &mut events,
        )
        .expect_err("the hook fails");
    assert_eq!(
        err,
        ActionError::Hook(crate::hooks::HookError {
            message: "boom".into()
        })
    );
    assert!(err.to_string().contains("boom"));
    // Nothing happened: no events, the Battle tile still in hand, the same board and turn.
    assert!(events.is_empty());
    assert_eq!(g.hand(Seat::new(0)), before.hand(Seat::new(0)));
    assert_eq!(g.field(), before.field());
    assert_eq!(g.current(), before.current());
    assert_eq!(g.battles(), before.battles());
    // Without the failing script the same action plays.
    g.act(
        &Action::Instant {
            tile: battle,
            target: Target::None,
        },
        &mut NoAbilities,
        &mut DefaultPolicy,
        &mut events,
    )
    .expect("plays");
    assert_eq!(g.battles(), before.battles() + 1);
}

/// Ability hooks that note, for each turn hook call, the seed given just before it (taken, so a
/// second call without a reseed of its own notes none).
#[derive(Default)]
struct SeedLog {
    seed: Option<u64>,
    calls: Vec<(&'static str, Option<u64>)>,
}

impl crate::hooks::AbilityHooks for SeedLog {
    fn reseed(&mut self, seed: u64) {
        self.seed = Some(seed);
    }

    fn turn_started(
        &mut self,
        _ctx: &crate::hooks::HookContext<'_>,
        _effects: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), crate::hooks::HookError> {
        self.calls.push(("turn_started", self.seed.take()));
        Ok(())
    }

    fn turn_ended(
        &mut self,
        _ctx: &crate::hooks::HookContext<'_>,
        _effects: &mut Vec<crate::effect::Effect>,
    ) -> Result<(), crate::hooks::HookError> {
        self.calls.push(("turn_ended", self.seed.take()));
        Ok(())
    }
}

#[test]
fn every_hook_call_outside_a_battle_gets_a_seed_of_its_own_from_the_game() {
    use crate::hooks::{AbilityHooks, HookPoints};
    // Both HQs carry an ability with turn hooks.
    let mut cat = Catalog::clone(&catalog());
    cat.edit_tiles(|_, t| {
        if t.is_hq() {
            let mut ability = crate::tile::AbilityRef::new("probe", Default::default());
            ability.points = HookPoints::TURN_STARTED.union(HookPoints::TURN_ENDED);
            t.abilities = vec![ability];
        }
    });
    let cat = Arc::new(cat);
    let mut g = position_with(
        cat.clone(),
        [vec!["soldier"; 3], vec!["soldier"; 3]],
        [vec![], vec![]],
        None,
    );
    let soldier = cat.find("a/soldier").expect("soldier");
    let mut log = SeedLog::default();
    g.act(
        &Action::Discard { tile: soldier },
        &mut log,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect("discard");
    let copy = g.clone();
    let before = g.state_hash();
    g.act(&Action::EndTurn, &mut log, &mut DefaultPolicy, &mut ())
        .expect("ends the turn");
    // a's HQ ends its turn, b's HQ starts one: each call after a reseed of its own.
    let calls = std::mem::take(&mut log.calls);
    assert_eq!(
        calls.iter().map(|(p, _)| *p).collect::<Vec<_>>(),
        ["turn_ended", "turn_started"]
    );
    assert!(calls.iter().all(|(_, s)| s.is_some()), "{calls:?}");
    assert_ne!(calls[0].1, calls[1].1);
    // The count of such calls is state: the hash moves with it, not only with the turn.
    let mut counted = copy.clone();
    counted.hook_calls += 2;
    assert_ne!(counted.state_hash(), copy.state_hash());
    assert_ne!(g.state_hash(), before);
    // The same game played with hooks that were reseeded and called elsewhere in between (a
    // bot's simulations) gets the same seeds.
    let mut other = SeedLog::default();
    other.reseed(12345);
    let mut again = copy.clone();
    again
        .act(&Action::EndTurn, &mut other, &mut DefaultPolicy, &mut ())
        .expect("ends the turn");
    assert_eq!(other.calls, calls);
    assert_eq!(again.state_hash(), g.state_hash());
    // The next turn's calls get new seeds.
    let theirs = cat.find("b/soldier").expect("soldier");
    g.act(
        &Action::Discard { tile: theirs },
        &mut log,
        &mut DefaultPolicy,
        &mut (),
    )
    .expect("discard");
    g.act(&Action::EndTurn, &mut log, &mut DefaultPolicy, &mut ())
        .expect("ends the turn");
    assert!(
        log.calls
            .iter()
            .all(|c| c.1.is_some() && !calls.contains(c)),
        "{:?}",
        log.calls
    );
}

/// Lists the cells of `cells` as the targets of every scripted instant, counting its calls.
struct Lister {
    cells: u64,
    calls: u32,
}

impl crate::hooks::AbilityHooks for Lister {
    fn instant_targets(
        &mut self,
        _ctx: &crate::hooks::InstantContext<'_>,
        targets: &mut crate::hooks::InstantTargets,
    ) -> Result<(), crate::hooks::HookError> {
        self.calls += 1;
        targets.cells |= self.cells;
        Ok(())
    }
}

/// Armies `a` and `b`: an HQ and a scripted instant `gas` each.
fn scripted_catalog() -> Arc<Catalog> {
    let mut c = Catalog::new();
    for army in ["a", "b"] {
        let hq = Tile::new(army, "hq", TileKind::Hq);
        let mut gas = Tile::new(army, "gas", TileKind::Instant);
        gas.instant = Some(InstantEffect::Scripted);
        let mut ability = crate::tile::AbilityRef::new("gas", Default::default());
        ability.points = crate::hooks::HookPoints::INSTANT;
        gas.abilities.push(ability);
        c.add_army(army, army, 2, vec![hq, gas]).expect("army");
    }
    Arc::new(c)
}

/// A position of `scripted_catalog` with `a` to play holding its gas; `hooks` list the targets.
fn gas_position(hooks: &mut Lister) -> Game {
    let cat = scripted_catalog();
    let tile = |id: &str| cat.find(id).expect("tile");
    let at = |id: &str, owner: u8, r: i32| TileSetup {
        tile: tile(id),
        owner: Seat::new(owner),
        hex: Hex::new(0, r),
        facing: Dir::N,
        wounds: 0,
    };
    let piles = |army: &str, hand: Vec<TileRef>| Piles {
        army: army.into(),
        deck: Vec::new(),
        hand,
        discard: Vec::new(),
        reserve: Vec::new(),
    };
    Game::from_position(
        Position {
            setup: duel_setup(vec![at("a/hq", 0, 2), at("b/hq", 1, -2)]),
            piles: vec![piles("a", vec![tile("a/gas")]), piles("b", Vec::new())],
            next: Seat::new(0),
            turn_number: 5,
            last_turns: None,
            seed: 0,
            marks: Vec::new(),
            links: Vec::new(),
        },
        cat.clone(),
        Arc::new(Rules::default()),
        hooks,
        &mut (),
    )
    .expect("position")
}

#[test]
fn scripted_instant_targets_are_listed_from_the_kept_lists_and_hashed() {
    let mut three = Lister {
        cells: 1 << 3,
        calls: 0,
    };
    let mut four = Lister {
        cells: 1 << 4,
        calls: 0,
    };
    let mut g = gas_position(&mut three);
    let other = gas_position(&mut four);
    assert_eq!(three.calls, 1, "worked out once as the game starts");
    // The same game but for what the scripts list: the hash tells them apart.
    assert_ne!(g.state_hash(), other.state_hash());
    let gas = g.catalog().find("a/gas").expect("gas");
    let shape = g.field().shape().clone();
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    let listed: Vec<Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Instant { .. }))
        .collect();
    assert_eq!(
        listed,
        vec![Action::Instant {
            tile: gas,
            target: Target::Hex(shape.hexes()[3]),
        }]
    );
    assert_eq!(three.calls, 1, "listing the legal actions calls no hook");
    // Ending the turn works the lists out again, for `b`, who holds none.
    g.act(&Action::EndTurn, &mut three, &mut DefaultPolicy, &mut ())
        .expect("end the turn");
    assert_eq!(g.instant_targets(gas), None);
}

/// The catalog of [`catalog`] with every soldier of army `a` leading a two-hex unit
/// (`[tile.linked]`): its `tail` (count 0) goes on the hex behind it.
fn crawler_catalog() -> Arc<Catalog> {
    let mut c = Catalog::new();
    for army in ["a", "b"] {
        let mut hq = Tile::new(army, "hq", TileKind::Hq);
        hq.initiative = crate::tile::Initiative::new(&[0]).expect("initiative");
        let mut soldier = Tile::new(army, "soldier", TileKind::Soldier);
        soldier.count = 8;
        soldier.initiative = crate::tile::Initiative::new(&[2]).expect("initiative");
        let mut tail = Tile::new(army, "tail", TileKind::Soldier);
        tail.count = 0;
        if army == "a" {
            soldier.linked = Some(Box::new(crate::tile::Assembly {
                kind: crate::marker::MarkerName::new("crawler").expect("a name"),
                loss: crate::link::LinkLoss::Whole,
                shared: true,
                parts: vec![crate::tile::Part {
                    tile: "tail".into(),
                    steps: vec![crate::hex::Edge::ALL[3]],
                }],
            }));
        }
        c.add_army(army, army, 9, vec![hq, soldier, tail])
            .expect("army");
    }
    Arc::new(c)
}

#[test]
fn a_declared_unit_is_listed_and_placed_only_where_its_part_fits() {
    let mut g = game_of(crawler_catalog(), Rules::default(), 5);
    place_hqs(&mut g);
    if g.current() != Some(Seat::new(0)) {
        act(&mut g, Action::EndTurn);
    }
    assert_eq!((g.current(), g.stage()), (Some(Seat::new(0)), Stage::Play));
    let lead = g.hand(Seat::new(0))[0];
    let held = g.hand(Seat::new(0)).len();
    let mut legal = LegalActions::new();
    g.legal_actions(&mut legal);
    let listed: Vec<(Hex, Dir)> = legal
        .iter()
        .filter_map(|a| match a {
            Action::Place { hex, facing, .. } => Some((hex, facing)),
            _ => None,
        })
        .collect();
    // Worked out by hand: the hex and the one behind it both free and on the board.
    let shape = BoardShape::standard();
    let free = |h: Hex| shape.cell(h).is_some() && h != Hex::new(0, 2) && h != Hex::new(0, -2);
    let mut expected = Vec::new();
    for c in shape.cells() {
        let h = shape.hex(c);
        for f in Dir::ALL {
            if free(h) && free(h.step(f.opposite())) {
                expected.push((h, f));
            }
        }
    }
    assert_eq!(listed, expected);
    let hq = Hex::new(0, -2);
    assert!(!listed.iter().any(|&(h, _)| h == hq), "an HQ's hex");
    let err = g
        .check(&Action::Place {
            tile: lead,
            hex: Hex::new(2, -2),
            facing: Dir::new(4),
        })
        .expect_err("the tail would be off the board");
    assert!(
        err.to_string()
            .contains("its part `tail` would stand on [3, -3], off the board"),
        "{err}"
    );
    let events = act(
        &mut g,
        Action::Place {
            tile: lead,
            hex: Hex::ORIGIN,
            facing: Dir::N,
        },
    );
    assert!(events.iter().any(|e| matches!(e, Event::Joined { .. })));
    let links = g.field().links();
    assert_eq!(links.len(), 1);
    let tail_cell = shape.cell(Hex::new(0, 1)).expect("on the board");
    assert_eq!(
        links[0].segments,
        shape.cell(Hex::ORIGIN).expect("on").bit() | tail_cell.bit()
    );
    assert_eq!(g.field().at(tail_cell).map(|p| p.facing), Some(Dir::N));
    assert_eq!(
        g.hand(Seat::new(0)).len(),
        held - 1,
        "only the lead left the hand"
    );
}

#[test]
fn a_part_that_is_not_in_the_army_leaves_the_catalog_as_it_was() {
    let mut c = Catalog::new();
    let hq = Tile::new("a", "hq", TileKind::Hq);
    let mut lead = Tile::new("a", "lead", TileKind::Soldier);
    lead.linked = Some(Box::new(crate::tile::Assembly {
        kind: crate::marker::MarkerName::new("wagon").expect("a name"),
        loss: crate::link::LinkLoss::Whole,
        shared: true,
        parts: vec![crate::tile::Part {
            tile: "rear".into(),
            steps: vec![crate::hex::Edge::ALL[3]],
        }],
    }));
    let err = c
        .add_army("a", "A", 2, vec![hq, lead])
        .expect_err("no rear");
    assert_eq!(
        err.to_string(),
        "`a/lead` is placed with `rear`, which is not a soldier or module of its army without a `[tile.linked]` of its own"
    );
    assert_eq!(c.find("a/lead"), None);
    assert!(c.armies().is_empty());
}

#[test]
fn a_copy_made_over_another_game_is_that_game_field_for_field() {
    // `Game::clone_from` lists every field by hand (to keep the lists' room): it must give what
    // `clone` gives, whatever the game it overwrites held.
    let mut source = new_game(Rules::default(), 7);
    place_hqs(&mut source);
    let mut legal = LegalActions::new();
    for _ in 0..6 {
        source.legal_actions(&mut legal);
        let Some(a) = legal.get(0) else { break };
        act(&mut source, a);
    }
    let mut other = new_game(Rules::default(), 99);
    place_hqs(&mut other);
    other.clone_from(&source);
    assert_eq!(format!("{other:?}"), format!("{:?}", source.clone()));
    assert_eq!(other.state_hash(), source.state_hash());
    let mut board = other.field().clone();
    board.clone_from(new_game(Rules::default(), 1).field());
    assert_eq!(&board, new_game(Rules::default(), 1).field());
}

#[test]
fn an_hq_never_starts_with_no_hit_points() {
    // The option refuses 0 (a game at 0 HP ended no turn and never finished).
    let mut rules = Rules::default();
    let err = rules
        .set("hq_hp", &crate::tile::ParamValue::Int(0))
        .expect_err("0 is refused");
    assert!(err.to_string().contains("from 1 to 65535"), "{err}");
    // Set in code, the game refuses it.
    rules.hq_hp = 0;
    let refused = Game::new(
        GameSetup {
            shape: BoardShape::standard(),
            seats: SeatSetup::each_alone(&["a", "b"]),
            seed: 1,
            marks: Vec::new(),
        },
        catalog(),
        Arc::new(rules),
    );
    assert!(matches!(refused, Err(GameError::NoHitPoints)));
}

//! Game modes from the players' teams (section 8), their turn order, and who has won: after a
//! battle that destroyed HQs, and by HQ hit points after the Final Battle.

use super::{Game, GameError};
use crate::battlefield::Seat;
use crate::event::{DrawReason, GameResult};
use crate::rules::{Ffa3Tie, OneVsTeamCompare};

/// The mode a game is played in, read from its players' teams.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// Two players (R2).
    Duel,
    /// Three or four players, each on their own (R8.2, R8.6).
    FreeForAll,
    /// One player against a team of two (R8.4).
    OneVsTeam,
    /// Two teams of two (R8.5).
    Teams,
}

impl Mode {
    /// The mode the seats' teams make (`teams[i]` is player i's), or the reason they make none.
    pub fn of(teams: &[u8]) -> Result<Mode, GameError> {
        let size = |t: u8| teams.iter().filter(|x| **x == t).count();
        let distinct = teams
            .iter()
            .enumerate()
            .filter(|(i, t)| !teams[..*i].contains(t))
            .count();
        match (teams.len(), distinct) {
            (2, 2) => Ok(Mode::Duel),
            (3 | 4, d) if d == teams.len() => Ok(Mode::FreeForAll),
            (3, 2) => Ok(Mode::OneVsTeam),
            (4, 2) if teams.iter().all(|t| size(*t) == 2) => {
                // R8.5.3: teammates never play one after the other.
                if teams[0] == teams[1] || teams[1] == teams[2] || teams[2] == teams[3] {
                    Err(GameError::Teams(
                        "teammates never play one after the other (R8.5.3): list the players as A1, B1, A2, B2".into(),
                    ))
                } else {
                    Ok(Mode::Teams)
                }
            }
            (n, _) if !(2..=4).contains(&n) => Err(GameError::Teams(format!(
                "a game needs 2 to 4 players, not {n}"
            ))),
            _ => Err(GameError::Teams(
                "these teams make no game mode (R8): give 2 players, 3 or 4 players on their own, 1 against a team of 2, or 2 teams of 2".into(),
            )),
        }
    }

    /// The cycle of turns, by seat: seat order, or lone, member, lone, member against a team
    /// (R8.4.2).
    pub(super) fn turn_order(self, teams: &[u8]) -> Vec<Seat> {
        let seats = (0..teams.len() as u8).map(Seat::new);
        if self != Mode::OneVsTeam {
            return seats.collect();
        }
        let lone = (0..teams.len())
            .find(|i| teams.iter().filter(|t| **t == teams[*i]).count() == 1)
            .unwrap_or(0);
        let members: Vec<Seat> = seats.filter(|s| s.index() != lone).collect();
        let lone = Seat::new(lone as u8);
        vec![lone, members[0], lone, members[1]]
    }
}

impl Game {
    /// The result once a battle has destroyed HQs, or `None` while the game goes on (R2.9.1-R2.9.3,
    /// R8.2.3, R8.4.4, R8.5.6, Q8, Q35).
    pub(super) fn decisive(&self) -> Option<GameResult> {
        let f = &self.field;
        let lost = |p: Seat| f.hq_hp(p) <= 0;
        match self.mode {
            Mode::Duel | Mode::FreeForAll => {
                // R8.2.5: a player out of the race of a tie can no longer win.
                let alive: Vec<Seat> = f.players().filter(|p| self.racing(*p)).collect();
                match alive.len() {
                    0 => Some(GameResult::Draw {
                        reason: DrawReason::AllHqsDestroyed,
                    }),
                    1 => Some(GameResult::Won {
                        team: f.team(alive[0]),
                    }),
                    n if n < f.player_count()
                        && self.mode == Mode::FreeForAll
                        && f.player_count() == 4
                        && self.rules.hq_loss_ends_game_4p =>
                    {
                        // Classic as written: an HQ loss ends a 4-player game (R8.2.4); the
                        // healthiest survivor wins.
                        Some(self.compare(&alive).unwrap_or(GameResult::Draw {
                            reason: DrawReason::EqualHp,
                        }))
                    }
                    _ => None,
                }
            }
            Mode::OneVsTeam | Mode::Teams => {
                let [a, b] = self.sides();
                let a_lost = a.iter().any(|p| lost(*p));
                let b_lost = b.iter().any(|p| lost(*p));
                let team = |side: &[Seat]| GameResult::Won {
                    team: f.team(side[0]),
                };
                match (a_lost, b_lost) {
                    (false, false) => None,
                    (true, false) => Some(team(&b)),
                    (false, true) => Some(team(&a)),
                    // R8.4.4: the team wins when the lone HQ and a team HQ fall together.
                    (true, true) if self.mode == Mode::OneVsTeam => {
                        Some(team(if a.len() == 2 { &a } else { &b }))
                    }
                    // R8.5.6: compare the remaining HQs; Q35: a side with none left loses.
                    (true, true) => {
                        let best = |side: &[Seat]| {
                            side.iter()
                                .filter(|p| !lost(**p))
                                .map(|p| f.hq_hp(*p))
                                .max()
                        };
                        match (best(&a), best(&b)) {
                            (Some(x), Some(y)) if x > y => Some(team(&a)),
                            (Some(x), Some(y)) if y > x => Some(team(&b)),
                            (Some(_), None) => Some(team(&a)),
                            (None, Some(_)) => Some(team(&b)),
                            (None, None) => Some(GameResult::Draw {
                                reason: DrawReason::AllHqsDestroyed,
                            }),
                            _ => Some(GameResult::Draw {
                                reason: DrawReason::EqualHp,
                            }),
                        }
                    }
                }
            }
        }
    }

    /// The result by HQ hit points after the Final Battle, or `None` on equal HP (R2.9.4, R8.2,
    /// R8.4.5, R8.5.6).
    pub(super) fn by_hit_points(&self) -> Option<GameResult> {
        let f = &self.field;
        match self.mode {
            Mode::Duel | Mode::FreeForAll => {
                let alive: Vec<Seat> = f.players().filter(|p| self.racing(*p)).collect();
                self.compare(&alive)
            }
            Mode::OneVsTeam | Mode::Teams => {
                let sides = self.sides();
                let score = |side: &[Seat]| -> i32 {
                    let hp = side.iter().map(|p| f.hq_hp(*p).max(0));
                    if self.mode == Mode::OneVsTeam
                        && side.len() == 2
                        && self.rules.one_vs_team_compare == OneVsTeamCompare::BestTeamHq
                    {
                        hp.max().unwrap_or(0)
                    } else {
                        hp.sum()
                    }
                };
                let (a, b) = (score(&sides[0]), score(&sides[1]));
                let won = |side: &[Seat]| GameResult::Won {
                    team: f.team(side[0]),
                };
                match a.cmp(&b) {
                    std::cmp::Ordering::Greater => Some(won(&sides[0])),
                    std::cmp::Ordering::Less => Some(won(&sides[1])),
                    std::cmp::Ordering::Equal => None,
                }
            }
        }
    }

    /// Whether a tie after the Final Battle follows the three-player procedure of R8.2.5
    /// (`ffa3_tie_procedure = extra_turns_then_battle_share`) rather than R2.9.5: a free for all
    /// of three players.
    pub(super) fn three_player_tie(&self) -> bool {
        self.mode == Mode::FreeForAll
            && self.field.player_count() == 3
            && self.rules.ffa3_tie_procedure == Ffa3Tie::ExtraTurnsThenBattleShare
    }

    /// The players in the race who share the most HQ HP, one bit each (R8.2.5).
    pub(super) fn tied_at_the_top(&self) -> u8 {
        let f = &self.field;
        let racing: Vec<Seat> = f.players().filter(|p| self.racing(*p)).collect();
        let Some(best) = racing.iter().map(|p| f.hq_hp(*p)).max() else {
            return 0;
        };
        racing
            .iter()
            .filter(|p| f.hq_hp(**p) == best)
            .fold(0, |m, p| m | 1 << p.index())
    }

    /// The shared victory of the players in `players` (one bit per seat): one bit per team.
    pub(super) fn shared(&self, players: u8) -> GameResult {
        let f = &self.field;
        let teams = f
            .players()
            .filter(|p| players & 1 << p.index() != 0)
            .fold(0u8, |m, p| m | 1 << f.team(p));
        GameResult::Shared { teams }
    }

    /// The player with the most HQ HP among `players`, or `None` if the most is shared.
    fn compare(&self, players: &[Seat]) -> Option<GameResult> {
        let f = &self.field;
        let best = players.iter().map(|p| f.hq_hp(*p)).max()?;
        let mut top = players.iter().filter(|p| f.hq_hp(**p) == best);
        let first = *top.next()?;
        top.next().is_none().then(|| GameResult::Won {
            team: f.team(first),
        })
    }

    /// The two sides of a team game, each in seat order.
    fn sides(&self) -> [Vec<Seat>; 2] {
        let f = &self.field;
        let first = f.team(Seat::new(0));
        let (a, b): (Vec<Seat>, Vec<Seat>) = f.players().partition(|p| f.team(*p) == first);
        [a, b]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_follow_the_teams() {
        assert_eq!(Mode::of(&[0, 1]), Ok(Mode::Duel));
        assert_eq!(Mode::of(&[0, 1, 2]), Ok(Mode::FreeForAll));
        assert_eq!(Mode::of(&[0, 1, 2, 3]), Ok(Mode::FreeForAll));
        assert_eq!(Mode::of(&[0, 1, 1]), Ok(Mode::OneVsTeam));
        assert_eq!(Mode::of(&[0, 1, 0, 1]), Ok(Mode::Teams));
        assert!(Mode::of(&[0, 0, 1, 1]).is_err(), "R8.5.3");
        assert!(Mode::of(&[0, 0]).is_err());
        assert!(Mode::of(&[0, 1, 1, 2]).is_err());
    }

    #[test]
    fn a_lone_player_alternates_with_the_team_members() {
        let order = Mode::OneVsTeam.turn_order(&[1, 0, 1]);
        let seats: Vec<usize> = order.iter().map(|s| s.index()).collect();
        assert_eq!(seats, vec![1, 0, 1, 2], "R8.4.2: 1, 2, 1, 3");
    }
}

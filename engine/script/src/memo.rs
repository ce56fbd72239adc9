//! Attack plans remembered for `plan_attacks` calls that depend on nothing but what they were
//! handed: a later call of the same ability, for the same tile, on the same plan and with the
//! same answer to its declared question, gets the plan the first call made without entering Lua.
//!
//! A call is remembered only when nothing else could have shaped its result: its mod keeps no
//! state a script can change (no function assigns an upvalue, `bytecode.rs`, and every table its
//! scripts reach is read-only, `snapshot.rs`), it read the game through no
//! method of `ctx` but those fixed by the key (`param`, `rule`, `option`, `ask`), it asked no
//! effect, it drew no random number, and it succeeded. Such a call is a function of the key, so
//! handing back its result is the call itself, bit for bit, in any process. The rules are part of
//! what `rule` and `option` read: the host forgets every plan when its rules change, and when it
//! binds a new catalog.

use hexforge_core::TileRef;
use hexforge_core::hooks::AttackPlan;

/// How many plans are kept for one ability of one tile; past that the oldest is replaced.
const PER_ABILITY: usize = 16;

/// One remembered call: what it was handed and the plan it made.
struct Entry {
    tile: Option<TileRef>,
    answer: Option<bool>,
    input: AttackPlan,
    output: AttackPlan,
}

/// The calls remembered for one binding (an ability of one kind of tile), oldest replaced first.
#[derive(Default)]
struct Kept {
    entries: Vec<Entry>,
    next: usize,
}

/// The remembered `plan_attacks` calls of a script host, by binding.
#[derive(Default)]
pub(crate) struct PlanMemo {
    by_binding: Vec<Kept>,
    /// The plan the current call was handed ([`PlanMemo::note`]), kept in a buffer of its own so
    /// that a call that cannot be remembered costs no allocation.
    noted: AttackPlan,
}

impl PlanMemo {
    /// Forgets every remembered call.
    pub(crate) fn clear(&mut self) {
        self.by_binding.clear();
    }

    /// The plan a remembered call of `binding` made from `input`, if there is one.
    pub(crate) fn find(
        &self,
        binding: usize,
        tile: Option<TileRef>,
        answer: Option<bool>,
        input: &AttackPlan,
    ) -> Option<&AttackPlan> {
        self.by_binding
            .get(binding)?
            .entries
            .iter()
            .find(|e| e.tile == tile && e.answer == answer && e.input == *input)
            .map(|e| &e.output)
    }

    /// Notes the plan a call is handed, for [`PlanMemo::keep_noted`] once it has returned.
    pub(crate) fn note(&mut self, input: &AttackPlan) {
        self.noted.attacks.clone_from(&input.attacks);
        self.noted.blast = input.blast;
    }

    /// Remembers that a call of `binding` made `output` from the plan last noted.
    pub(crate) fn keep_noted(
        &mut self,
        binding: usize,
        tile: Option<TileRef>,
        answer: Option<bool>,
        output: &AttackPlan,
    ) {
        let input = self.noted.clone();
        self.keep(binding, tile, answer, input, output);
    }

    /// Remembers that a call of `binding` made `output` from `input`.
    pub(crate) fn keep(
        &mut self,
        binding: usize,
        tile: Option<TileRef>,
        answer: Option<bool>,
        input: AttackPlan,
        output: &AttackPlan,
    ) {
        if self.by_binding.len() <= binding {
            self.by_binding.resize_with(binding + 1, Kept::default);
        }
        let kept = &mut self.by_binding[binding];
        let entry = Entry {
            tile,
            answer,
            input,
            output: output.clone(),
        };
        if kept.entries.len() < PER_ABILITY {
            kept.entries.push(entry);
        } else {
            kept.entries[kept.next] = entry;
            kept.next = (kept.next + 1) % PER_ABILITY;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hexforge_core::event::AttackKind;
    use hexforge_core::hex::Edge;
    use hexforge_core::hooks::PlannedAttack;

    fn plan(strength: u8) -> AttackPlan {
        AttackPlan {
            attacks: vec![PlannedAttack {
                edge: Edge::ALL[0],
                kind: AttackKind::Ranged,
                strength,
                base: strength,
                target: None,
            }],
            blast: None,
        }
    }

    #[test]
    fn a_plan_is_found_only_under_the_key_it_was_kept_with() {
        let mut memo = PlanMemo::default();
        let mut out = plan(2);
        out.attacks[0].kind = AttackKind::Pierce;
        memo.keep(3, None, Some(false), plan(2), &out);
        assert_eq!(memo.find(3, None, Some(false), &plan(2)), Some(&out));
        assert_eq!(memo.find(3, None, Some(true), &plan(2)), None);
        assert_eq!(memo.find(3, None, Some(false), &plan(3)), None);
        assert_eq!(memo.find(2, None, Some(false), &plan(2)), None);
        memo.clear();
        assert_eq!(memo.find(3, None, Some(false), &plan(2)), None);
    }

    #[test]
    fn past_its_room_an_ability_forgets_its_oldest_plan_first() {
        let mut memo = PlanMemo::default();
        for s in 0..=PER_ABILITY as u8 {
            memo.keep(0, None, None, plan(s), &plan(s + 1));
        }
        assert_eq!(memo.find(0, None, None, &plan(0)), None);
        assert_eq!(memo.find(0, None, None, &plan(1)), Some(&plan(2)));
        let last = PER_ABILITY as u8;
        assert_eq!(memo.find(0, None, None, &plan(last)), Some(&plan(last + 1)));
    }
}

//! A small deterministic mutator for runs without a coverage-guided fuzzer (the short run of the
//! test suite): byte flips, tokens of the formats, cut, repeated and spliced pieces, numbers
//! at their limits. The same seed gives the same inputs on every machine.

/// Pieces of the formats worth inserting: TOML's punctuation and keys, replay words, numbers at
/// their limits.
const TOKENS: &[&[u8]] = &[
    b"[",
    b"]",
    b"[[",
    b"]]",
    b"{",
    b"}",
    b"=",
    b",",
    b"\"",
    b"'",
    b"\"\"\"",
    b"'''",
    b"#",
    b"\n",
    b"\\u0000",
    b"\\",
    b".",
    b"-",
    b"+",
    b"0x",
    b"0o",
    b"0b",
    b"inf",
    b"nan",
    b"1e999",
    b"9223372036854775807",
    b"-9223372036854775808",
    b"18446744073709551616",
    b"-1",
    b"0",
    b"255",
    b"65536",
    b"4294967296",
    b"true",
    b"false",
    b"1979-05-27T07:32:00Z",
    b"[tile]",
    b"[[tile]]",
    b"[[step]]",
    b"[[player]]",
    b"[game]",
    b"[options]",
    b"[expect]",
    b"[army]",
    b"[[change]]",
    b"[[tile.ability]]",
    b"id = ",
    b"kind = ",
    b"count = ",
    b"edges = ",
    b"at = ",
    b"facing = ",
    b"owner = ",
    b"tile = ",
    b"hex = ",
    b"army = ",
    b"hook = ",
    b"marker = ",
    b"version = ",
    b"depends = ",
    b"hq",
    b"soldier",
    b"module",
    b"instant",
    b"melee:1@0",
    b"ranged:3@0,1,2,3,4,5",
    b"net@0",
    b"armor@1",
    b"link",
    b"moloch/",
    b"outpost/hq",
    b"borgo",
    b"hegemony",
    b"step ",
    b"action ",
    b"place ",
    b"discard ",
    b"pass",
    b"pick ",
    b"hash ",
    b"phase ",
    b"seat ",
    b"rules ",
    b"option ",
    b"board ",
    b"end\n",
    b"hexforge-replay 1\n",
    b"\xff",
    b"\xc3\xa9",
    b"\xf0\x9f\x92\xa5",
];

/// A seeded generator of mutations.
pub struct Mutator {
    state: u64,
}

impl Mutator {
    /// A mutator whose choices follow from `seed`.
    pub fn new(seed: u64) -> Self {
        Mutator {
            state: seed ^ 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// The next pseudo-random number (splitmix64).
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (0 when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.next() % n as u64).unwrap_or(0)
        }
    }

    /// A new input made from `input` by one to four mutations; `others` are pieces to splice in.
    /// The result holds at most `max_len` bytes.
    pub fn mutate(&mut self, input: &[u8], others: &[Vec<u8>], max_len: usize) -> Vec<u8> {
        let mut out = input.to_vec();
        for _ in 0..=self.below(4) {
            self.once(&mut out, others);
        }
        out.truncate(max_len);
        out
    }

    /// One mutation of `out`.
    fn once(&mut self, out: &mut Vec<u8>, others: &[Vec<u8>]) {
        let len = out.len();
        match self.below(9) {
            0 if len > 0 => {
                let i = self.below(len);
                out[i] ^= 1 << self.below(8);
            }
            1 if len > 0 => {
                let i = self.below(len);
                out[i] = b"\0\xff\"[]{}=,#\n\\09-."[self.below(16)];
            }
            2 | 3 => {
                let token = TOKENS[self.below(TOKENS.len())];
                let at = self.below(len + 1);
                out.splice(at..at, token.iter().copied());
            }
            4 if len > 0 => {
                let from = self.below(len);
                let to = (from + 1 + self.below(64)).min(len);
                out.drain(from..to);
            }
            5 if len > 0 => {
                // A piece repeated: long arrays, many lines, deep nesting.
                let from = self.below(len);
                let to = (from + 1 + self.below(32)).min(len);
                let piece = out[from..to].to_vec();
                let most = if self.below(8) == 0 { 2000 } else { 8 };
                let times = 1 + self.below(most);
                let at = self.below(len + 1);
                let repeated: Vec<u8> = piece
                    .iter()
                    .copied()
                    .cycle()
                    .take(piece.len() * times)
                    .collect();
                out.splice(at..at, repeated);
            }
            6 if !others.is_empty() => {
                let other = &others[self.below(others.len())];
                let from = self.below(other.len());
                let to = (from + 1 + self.below(256)).min(other.len());
                let at = self.below(len + 1);
                out.splice(at..at, other[from..to].iter().copied());
            }
            7 => {
                // A number at a limit in place of the digits at one place.
                let digits: Vec<usize> = (0..len).filter(|&i| out[i].is_ascii_digit()).collect();
                if let Some(&i) = digits.get(self.below(digits.len())) {
                    let end = (i..len).find(|&j| !out[j].is_ascii_digit()).unwrap_or(len);
                    let numbers: [&[u8]; 6] = [
                        b"0",
                        b"99999999999999999999",
                        b"4294967295",
                        b"65535",
                        b"256",
                        b"7",
                    ];
                    out.splice(i..end, numbers[self.below(6)].iter().copied());
                }
            }
            _ if len > 1 => {
                // Two lines swapped.
                let text = out.clone();
                let mut lines: Vec<&[u8]> = text.split(|b| *b == b'\n').collect();
                let (a, b) = (self.below(lines.len()), self.below(lines.len()));
                lines.swap(a, b);
                *out = lines.join(&b'\n');
            }
            _ => out.push(self.next() as u8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_mutants() {
        let seeds = vec![b"id = \"a\"\n[[tile]]\ncount = 3\n".to_vec()];
        let run = |seed| {
            let mut m = Mutator::new(seed);
            (0..50)
                .map(|_| m.mutate(&seeds[0], &seeds, 1 << 16))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(7), run(7));
        assert_ne!(run(7), run(8));
    }

    #[test]
    fn mutants_stay_under_the_length_cap() {
        let mut m = Mutator::new(1);
        let mut input = b"a = [1, 2, 3]".to_vec();
        for _ in 0..500 {
            input = m.mutate(&input, &[], 4096);
            assert!(input.len() <= 4096);
        }
    }
}

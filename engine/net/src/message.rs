//! The protocol's messages, one per frame (docs/NETWORK.md): [`Message::parse`] reads a frame's
//! text and refuses a malformed one with a [`MessageError`] saying what was expected, and a
//! message's `Display` is its frame. Steps travel as the words of a replay (a [`WireStep`]).

use crate::frame::PROTOCOL;
use hexforge_core::Catalog;
use hexforge_replay::{Step, decode_action, encode_action};
use std::fmt;

/// The word every connection's first frame starts with, before the protocol version.
pub const MAGIC: &str = "hexforge-net";

/// What a connection is for, as its first frame says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A player joining a match, asking for a seat (from 0), or for any free one.
    Join {
        /// The seat asked for; `None`: the first free seat played remotely.
        seat: Option<usize>,
    },
    /// A spectator: the match read-only.
    Watch,
    /// The host answering a joiner or a spectator.
    Host,
    /// A relay answering a host.
    Relay,
    /// A host registering its match with a relay.
    RelayHost,
    /// A host taking up the joiner the relay announced as `peer`.
    RelayAccept {
        /// The number the relay gave the joiner.
        peer: u64,
    },
}

/// The first frame of a connection: `hexforge-net VERSION ROLE [seat=N|any] [match=CODE]
/// [peer=ID]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// What the connection is for.
    pub role: Role,
    /// The match code, on a relay.
    pub code: Option<String>,
}

/// One action of a match as it travels: its number (from 1), the state hash after it on the
/// side that sends it, the decisions taken during it, the board hash after each battle phase,
/// and the action in the words of a replay's `action` line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireStep {
    /// The step's number in the match, from 1.
    pub number: usize,
    /// The sender's `Game::state_hash` after the action.
    pub hash: u64,
    /// The option picked for each decision asked during the action, in order.
    pub picks: Vec<usize>,
    /// The board hash after each battle phase fought during the action.
    pub phases: Vec<u64>,
    /// The action, as `encode_action` writes it.
    pub action: String,
}

impl WireStep {
    /// Step `number` of a match, as the sender played it.
    pub fn from_step(number: usize, step: &Step, catalog: &Catalog) -> Self {
        WireStep {
            number,
            hash: step.hash,
            picks: step.picks.clone(),
            phases: step.phases.clone(),
            action: encode_action(&step.action, catalog),
        }
    }

    /// The step with its action read against `catalog` (a message naming what is wrong when
    /// the action names what is not loaded).
    pub fn to_step(&self, catalog: &Catalog) -> Result<Step, String> {
        Ok(Step {
            action: decode_action(&self.action, catalog)?,
            picks: self.picks.clone(),
            phases: self.phases.clone(),
            hash: self.hash,
        })
    }
}

/// One frame of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// The first frame of a connection.
    Hello(Hello),
    /// `header LINE`: one line of the match's header, as a replay file writes it.
    Header(String),
    /// `assign N` or `assign watch`: the seat the joiner plays (written from 1), or none.
    Assign(Option<usize>),
    /// `accept`: the joiner's content plays the header; send the match.
    Accept,
    /// `refuse REASON`: the joiner's content differs; what differs.
    Refuse(String),
    /// `step N hash H [pick P]... [phase X]... action WORDS`: one action.
    Step(WireStep),
    /// `live`: every step so far was sent; what follows is played as it comes.
    Live,
    /// `hash N H`: the sender's state hash after step N.
    Hash {
        /// The step, from 1.
        step: usize,
        /// `Game::state_hash` after it.
        hash: u64,
    },
    /// `notice TEXT`: news of the match (a seat left, a bot took it, it is back).
    Notice(String),
    /// `end`: the match is over and every hash was compared.
    End,
    /// `desync N H`: the states differ after step N (the host's hash H): send your replay.
    Desync {
        /// The first step whose states differ.
        step: usize,
        /// The host's state hash after it.
        hash: u64,
    },
    /// `replay LINE`: one line of the sender's replay of the match.
    ReplayLine(String),
    /// `replay-end`: the replay was sent whole.
    ReplayEnd,
    /// `stop REASON`: the host stopped the match.
    Stop(String),
    /// `error TEXT`: the sender refuses what it was sent, and closes the connection.
    Error(String),
    /// `ok`: the relay registered the match.
    Ok,
    /// `peer ID`: a joiner came to the relay for the match; take it up with `relay-accept`.
    Peer(u64),
    /// `fetch MOD`: a joiner offered the header asks for the archive of one of its mods.
    Fetch(String),
    /// `pack MOD HEX`: the next bytes of the mod's archive, in hexadecimal (at most
    /// [`PACK_CHUNK`] bytes a frame).
    Pack {
        /// The mod's id.
        id: String,
        /// The bytes.
        bytes: Vec<u8>,
    },
    /// `packed MOD BYTES`: the archive was sent whole; its size in bytes.
    Packed {
        /// The mod's id.
        id: String,
        /// The archive's size.
        size: usize,
    },
    /// `ask N seat S [pick P]... action WORDS`: what does seat S pick for the next decision of
    /// step N, its action and the picks so far as given.
    Ask(WireAsk),
    /// `answer N P`: the pick asked for step N.
    Answer {
        /// The step, from 1.
        step: usize,
        /// The option picked.
        pick: usize,
    },
    /// `nopack MOD REASON`: the host does not send that mod, and why.
    NoPack {
        /// The mod's id.
        id: String,
        /// Why.
        why: String,
    },
}

/// A decision of a step being played, asked of the side that plays the seat it is put to: step
/// `step`'s action with the options picked so far; the answer is the seat's pick for the next
/// decision (docs/NETWORK.md, "Decisions").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireAsk {
    /// The step being played, from 1.
    pub step: usize,
    /// The seat the decision is put to, from 0 (written from 1).
    pub seat: usize,
    /// The options picked for the step's decisions so far, in order.
    pub picks: Vec<usize>,
    /// The step's action, as `encode_action` writes it.
    pub action: String,
}

impl WireAsk {
    /// The ask of seat `seat`'s next decision in step `step`, its action written against
    /// `catalog` and the picks so far.
    pub fn new(
        (step, seat): (usize, usize),
        action: &hexforge_core::Action,
        picks: &[usize],
        catalog: &Catalog,
    ) -> Self {
        WireAsk {
            step,
            seat,
            picks: picks.to_vec(),
            action: encode_action(action, catalog),
        }
    }
}

/// The most seats a match has.
pub const MAX_SEATS: usize = 4;
/// The most decisions one `ask` frame carries the picks of.
pub const MAX_PICKS: usize = 1000;

/// The most bytes of a mod archive one `pack` frame carries (twice as many hexadecimal digits).
pub const PACK_CHUNK: usize = 6000;

/// A frame that is not a message of the protocol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageError {
    /// The frame, cut to its first 80 characters.
    pub frame: String,
    /// What is wrong and what was expected.
    pub problem: String,
}

impl fmt::Display for MessageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "malformed frame `{}`: {}", self.frame, self.problem)
    }
}

impl std::error::Error for MessageError {}

/// The frame kinds, for the message about an unknown one.
const KINDS: &str = "hexforge-net, header, assign, accept, refuse, step, live, hash, notice, end, desync, replay, replay-end, stop, error, ok, peer, fetch, pack, packed, nopack, ask, answer";

/// Whether `code` can name a match: 1 to 64 letters, digits, `-`, `_` or `.`.
pub fn valid_code(code: &str) -> bool {
    !code.is_empty()
        && code.len() <= 64
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A text as it travels in one frame: any newline becomes a space.
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Hello(h) => {
                write!(f, "{MAGIC} {PROTOCOL} ")?;
                match h.role {
                    Role::Join { seat: Some(s) } => write!(f, "join seat={}", s + 1)?,
                    Role::Join { seat: None } => f.write_str("join seat=any")?,
                    Role::Watch => f.write_str("watch")?,
                    Role::Host => f.write_str("host")?,
                    Role::Relay => f.write_str("relay")?,
                    Role::RelayHost => f.write_str("relay-host")?,
                    Role::RelayAccept { peer } => write!(f, "relay-accept peer={peer}")?,
                }
                if let Some(c) = &h.code {
                    write!(f, " match={c}")?;
                }
                Ok(())
            }
            Message::Header(l) => write!(f, "header {}", one_line(l)),
            Message::Assign(Some(s)) => write!(f, "assign {}", s + 1),
            Message::Assign(None) => f.write_str("assign watch"),
            Message::Accept => f.write_str("accept"),
            Message::Refuse(r) => write!(f, "refuse {}", one_line(r)),
            Message::Step(s) => {
                write!(f, "step {} hash {:016x}", s.number, s.hash)?;
                for p in &s.picks {
                    write!(f, " pick {p}")?;
                }
                for p in &s.phases {
                    write!(f, " phase {p:016x}")?;
                }
                write!(f, " action {}", one_line(&s.action))
            }
            Message::Live => f.write_str("live"),
            Message::Hash { step, hash } => write!(f, "hash {step} {hash:016x}"),
            Message::Notice(t) => write!(f, "notice {}", one_line(t)),
            Message::End => f.write_str("end"),
            Message::Desync { step, hash } => write!(f, "desync {step} {hash:016x}"),
            Message::ReplayLine(l) => write!(f, "replay {}", one_line(l)),
            Message::ReplayEnd => f.write_str("replay-end"),
            Message::Stop(t) => write!(f, "stop {}", one_line(t)),
            Message::Error(t) => write!(f, "error {}", one_line(t)),
            Message::Ok => f.write_str("ok"),
            Message::Peer(id) => write!(f, "peer {id}"),
            Message::Fetch(id) => write!(f, "fetch {}", one_line(id)),
            Message::Ask(a) => {
                write!(f, "ask {} seat {}", a.step, a.seat + 1)?;
                for p in &a.picks {
                    write!(f, " pick {p}")?;
                }
                write!(f, " action {}", one_line(&a.action))
            }
            Message::Answer { step, pick } => write!(f, "answer {step} {pick}"),
            Message::Pack { id, bytes } => {
                write!(f, "pack {} ", one_line(id))?;
                for b in bytes {
                    write!(f, "{b:02x}")?;
                }
                Ok(())
            }
            Message::Packed { id, size } => write!(f, "packed {} {size}", one_line(id)),
            Message::NoPack { id, why } => write!(f, "nopack {} {}", one_line(id), one_line(why)),
        }
    }
}

impl Message {
    /// Reads a frame's text as a message.
    pub fn parse(frame: &str) -> Result<Message, MessageError> {
        let bad = |problem: String| MessageError {
            frame: frame.chars().take(80).collect(),
            problem,
        };
        let (kind, rest) = frame.split_once(' ').unwrap_or((frame, ""));
        let words: Vec<&str> = rest.split_whitespace().collect();
        let none = |m: Message| {
            if rest.trim().is_empty() {
                Ok(m)
            } else {
                Err(bad(format!("`{kind}` takes nothing after it")))
            }
        };
        let text = |what: &str| {
            if rest.trim().is_empty() {
                Err(bad(format!("`{kind}` is followed by {what}")))
            } else {
                Ok(rest.to_string())
            }
        };
        let number = |w: Option<&&str>, what: &str| -> Result<usize, MessageError> {
            let w = w.ok_or_else(|| bad(format!("`{kind}` is followed by {what}")))?;
            w.parse::<usize>()
                .ok()
                .filter(|n| *n >= 1)
                .ok_or_else(|| bad(format!("`{w}` is not {what}")))
        };
        let hash = |w: Option<&&str>| -> Result<u64, MessageError> {
            let w = w.ok_or_else(|| bad(format!("`{kind}` is missing a state hash")))?;
            parse_hash(w).ok_or_else(|| {
                bad(format!(
                    "`{w}` is not a state hash: a hash is 1 to 16 hexadecimal digits"
                ))
            })
        };
        let exactly = |n: usize| {
            if words.len() == n {
                Ok(())
            } else {
                Err(bad(format!(
                    "`{kind}` takes {n} words after it, not {}",
                    words.len()
                )))
            }
        };
        match kind {
            MAGIC => parse_hello(&words).map(Message::Hello).map_err(bad),
            "header" => text("a line of the match's header").map(Message::Header),
            "assign" => {
                exactly(1)?;
                if words[0] == "watch" {
                    Ok(Message::Assign(None))
                } else {
                    let n = number(words.first(), "a seat number (from 1) or `watch`")?;
                    Ok(Message::Assign(Some(n - 1)))
                }
            }
            "accept" => none(Message::Accept),
            "refuse" => text("the reason").map(Message::Refuse),
            "step" => parse_step(&words).map(Message::Step).map_err(bad),
            "live" => none(Message::Live),
            "hash" => {
                exactly(2)?;
                Ok(Message::Hash {
                    step: number(words.first(), "a step number (from 1)")?,
                    hash: hash(words.get(1))?,
                })
            }
            "notice" => text("the news").map(Message::Notice),
            "end" => none(Message::End),
            "desync" => {
                exactly(2)?;
                Ok(Message::Desync {
                    step: number(words.first(), "a step number (from 1)")?,
                    hash: hash(words.get(1))?,
                })
            }
            "replay" => Ok(Message::ReplayLine(rest.to_string())),
            "replay-end" => none(Message::ReplayEnd),
            "stop" => text("the reason").map(Message::Stop),
            "error" => text("what is wrong").map(Message::Error),
            "ok" => none(Message::Ok),
            "peer" => {
                exactly(1)?;
                let id = words[0]
                    .parse::<u64>()
                    .map_err(|_| bad(format!("`{}` is not a peer number", words[0])))?;
                Ok(Message::Peer(id))
            }
            "ask" => parse_ask(&words).map(Message::Ask).map_err(bad),
            "answer" => {
                exactly(2)?;
                let pick = words[1]
                    .parse::<usize>()
                    .map_err(|_| bad(format!("`{}` is not an option's number", words[1])))?;
                Ok(Message::Answer {
                    step: number(words.first(), "a step number (from 1)")?,
                    pick,
                })
            }
            "fetch" => {
                exactly(1)?;
                mod_id(words[0]).map(Message::Fetch).map_err(bad)
            }
            "pack" => {
                exactly(2)?;
                let id = mod_id(words[0]).map_err(&bad)?;
                let hex = words[1].as_bytes();
                if hex.len() % 2 != 0 || hex.len() > 2 * PACK_CHUNK {
                    return Err(bad(format!(
                        "`pack` carries an even number of hexadecimal digits, at most {}",
                        2 * PACK_CHUNK
                    )));
                }
                let digit = |c: u8| (c as char).to_digit(16);
                let bytes = hex
                    .chunks(2)
                    .map(|p| Some((digit(p[0])? * 16 + digit(p[1])?) as u8))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(|| bad("`pack` carries hexadecimal digits only".to_string()))?;
                Ok(Message::Pack { id, bytes })
            }
            "packed" => {
                exactly(2)?;
                let id = mod_id(words[0]).map_err(&bad)?;
                let size = words[1]
                    .parse::<usize>()
                    .map_err(|_| bad(format!("`{}` is not a size in bytes", words[1])))?;
                Ok(Message::Packed { id, size })
            }
            "nopack" => {
                let (id, why) = rest.split_once(' ').unwrap_or((rest, ""));
                let id = mod_id(id).map_err(&bad)?;
                if why.trim().is_empty() {
                    return Err(bad("`nopack` is followed by the mod and why".to_string()));
                }
                Ok(Message::NoPack {
                    id,
                    why: why.to_string(),
                })
            }
            "" => Err(bad(format!(
                "an empty frame: a frame starts with one of {KINDS}"
            ))),
            other => Err(bad(format!(
                "unknown frame `{}`: a frame starts with one of {KINDS}",
                other.chars().take(40).collect::<String>()
            ))),
        }
    }
}

/// A mod id as frames write it: 1 to 64 lowercase letters, digits, `_` or `-`.
fn mod_id(w: &str) -> Result<String, String> {
    let ok = !w.is_empty()
        && w.len() <= 64
        && w.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if ok {
        Ok(w.to_string())
    } else {
        Err(format!(
            "`{}` is not a mod id: 1 to 64 lowercase letters, digits, `_` or `-`",
            w.chars().take(40).collect::<String>()
        ))
    }
}

/// A state hash as frames write it: hexadecimal, at most 16 digits.
fn parse_hash(w: &str) -> Option<u64> {
    if w.is_empty() || w.len() > 16 {
        return None;
    }
    u64::from_str_radix(w, 16).ok()
}

/// The words after `hexforge-net`.
fn parse_hello(words: &[&str]) -> Result<Hello, String> {
    let version = words
        .first()
        .ok_or_else(|| format!("`{MAGIC}` is followed by the protocol version ({PROTOCOL})"))?;
    let version: u32 = version.parse().map_err(|_| {
        format!("`{version}` is not a protocol version: this side speaks {PROTOCOL}")
    })?;
    if version != PROTOCOL {
        return Err(format!(
            "protocol version {version}: this side speaks version {PROTOCOL}; play with the same Hexforge version on both sides"
        ));
    }
    let role = *words.get(1).ok_or_else(|| {
        format!("`{MAGIC} {PROTOCOL}` is followed by a role: join, watch, host, relay, relay-host or relay-accept")
    })?;
    let (mut seat, mut code, mut peer) = (None, None, None);
    for w in &words[2..] {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("`{w}` is not KEY=VALUE (seat=N, match=CODE, peer=ID)"))?;
        match k {
            "seat" if v == "any" => seat = Some(None),
            "seat" => {
                let n = v
                    .parse::<usize>()
                    .ok()
                    .filter(|n| (1..=64).contains(n))
                    .ok_or_else(|| format!("`seat={v}`: a seat is a number from 1, or `any`"))?;
                seat = Some(Some(n - 1));
            }
            "match" if valid_code(v) => code = Some(v.to_string()),
            "match" => {
                return Err(format!(
                    "`match={v}`: a match code is 1 to 64 letters, digits, `-`, `_` or `.`"
                ));
            }
            "peer" => {
                peer = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("`peer={v}` is not a peer number"))?,
                );
            }
            other => {
                return Err(format!(
                    "unknown key `{other}`: the first frame takes seat=N, match=CODE and peer=ID"
                ));
            }
        }
    }
    let role = match role {
        "join" => Role::Join {
            seat: seat.flatten(),
        },
        "watch" => Role::Watch,
        "host" => Role::Host,
        "relay" => Role::Relay,
        "relay-host" => Role::RelayHost,
        "relay-accept" => Role::RelayAccept {
            peer: peer.ok_or("`relay-accept` names the peer it takes up: peer=ID")?,
        },
        other => {
            return Err(format!(
                "unknown role `{other}`: use join, watch, host, relay, relay-host or relay-accept"
            ));
        }
    };
    Ok(Hello { role, code })
}

/// The words after `step`.
/// The words after `ask`.
fn parse_ask(words: &[&str]) -> Result<WireAsk, String> {
    const SHAPE: &str = "an ask is `ask N seat S [pick P]... action WORDS`";
    let step = words
        .first()
        .and_then(|w| w.parse::<usize>().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("no step number: {SHAPE}"))?;
    let seat = match (words.get(1), words.get(2)) {
        (Some(&"seat"), Some(n)) => n
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=MAX_SEATS).contains(n))
            .ok_or_else(|| format!("`{n}` is not a seat (1 to {})", MAX_SEATS))?,
        _ => return Err(format!("no seat: {SHAPE}")),
    };
    let mut i = 3;
    let mut picks = Vec::new();
    loop {
        match (words.get(i), words.get(i + 1)) {
            (Some(&"action"), _) => break,
            (Some(&"pick"), Some(v)) => picks.push(
                v.parse::<usize>()
                    .map_err(|_| format!("`{v}` is not an option's number"))?,
            ),
            (Some(w), _) => return Err(format!("unknown word `{w}`: {SHAPE}")),
            (None, _) => return Err(format!("no action: {SHAPE}")),
        }
        if picks.len() > MAX_PICKS {
            return Err(format!("more than {} picks: {SHAPE}", MAX_PICKS));
        }
        i += 2;
    }
    let action = words[i + 1..].join(" ");
    if action.is_empty() {
        return Err(format!("an empty action: {SHAPE}"));
    }
    Ok(WireAsk {
        step,
        seat: seat - 1,
        picks,
        action,
    })
}

fn parse_step(words: &[&str]) -> Result<WireStep, String> {
    const SHAPE: &str = "a step is `step N hash H [pick P]... [phase X]... action WORDS`";
    let number = words
        .first()
        .and_then(|w| w.parse::<usize>().ok())
        .filter(|n| *n >= 1)
        .ok_or_else(|| format!("no step number: {SHAPE}"))?;
    let mut i = 1;
    let (mut hash, mut picks, mut phases) = (None, Vec::new(), Vec::new());
    loop {
        let Some(&key) = words.get(i) else {
            return Err(format!("no action: {SHAPE}"));
        };
        if key == "action" {
            break;
        }
        let value = words
            .get(i + 1)
            .ok_or_else(|| format!("`{key}` has no value: {SHAPE}"))?;
        match key {
            "hash" => {
                hash = Some(
                    parse_hash(value).ok_or_else(|| format!("`{value}` is not a state hash"))?,
                )
            }
            "pick" => picks.push(
                value
                    .parse::<usize>()
                    .map_err(|_| format!("`{value}` is not an option's number"))?,
            ),
            "phase" => phases
                .push(parse_hash(value).ok_or_else(|| format!("`{value}` is not a board hash"))?),
            other => return Err(format!("unknown word `{other}`: {SHAPE}")),
        }
        i += 2;
    }
    let action = words[i + 1..].join(" ");
    if action.is_empty() {
        return Err(format!("an empty action: {SHAPE}"));
    }
    Ok(WireStep {
        number,
        hash: hash.ok_or_else(|| format!("no hash: {SHAPE}"))?,
        picks,
        phases,
        action,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back_from_its_frame() {
        let all = [
            Message::Hello(Hello {
                role: Role::Join { seat: Some(1) },
                code: Some("friday-7".into()),
            }),
            Message::Hello(Hello {
                role: Role::Join { seat: None },
                code: None,
            }),
            Message::Hello(Hello {
                role: Role::Watch,
                code: None,
            }),
            Message::Hello(Hello {
                role: Role::RelayAccept { peer: 12 },
                code: Some("x".into()),
            }),
            Message::Header("seat moloch".into()),
            Message::Assign(Some(0)),
            Message::Assign(None),
            Message::Accept,
            Message::Refuse("mod `base`: other version".into()),
            Message::Step(WireStep {
                number: 3,
                hash: 0xfeed,
                picks: vec![1, 0],
                phases: vec![7, 8],
                action: "place moloch/hq 0 0 0".into(),
            }),
            Message::Live,
            Message::Hash {
                step: 4,
                hash: u64::MAX,
            },
            Message::Notice("seat 2 left".into()),
            Message::End,
            Message::Desync { step: 9, hash: 1 },
            Message::ReplayLine("action end_turn".into()),
            Message::ReplayEnd,
            Message::Stop("desync".into()),
            Message::Error("no".into()),
            Message::Ok,
            Message::Peer(5),
            Message::Fetch("leaders".to_string()),
            Message::Ask(WireAsk {
                step: 7,
                seat: 1,
                picks: vec![0, 2],
                action: "place moloch/medic 0 1 3".into(),
            }),
            Message::Answer { step: 7, pick: 1 },
            Message::Pack {
                id: "leaders".to_string(),
                bytes: vec![0, 1, 0xfe, 0xff, b'\n'],
            },
            Message::Packed {
                id: "leaders".to_string(),
                size: 5,
            },
            Message::NoPack {
                id: "leaders".to_string(),
                why: "the match is not played with it".to_string(),
            },
        ];
        for m in all {
            let frame = m.to_string();
            assert_eq!(Message::parse(&frame), Ok(m), "{frame}");
        }
        assert_eq!(
            Message::Step(WireStep {
                number: 1,
                hash: 0xab,
                picks: vec![],
                phases: vec![],
                action: "end_turn".into()
            })
            .to_string(),
            "step 1 hash 00000000000000ab action end_turn"
        );
    }

    #[test]
    fn malformed_frames_say_what_was_expected() {
        let cases = [
            ("", "an empty frame"),
            ("hello", "unknown frame `hello`"),
            ("hexforge-net 2 join", "protocol version 2"),
            ("hexforge-net x join", "not a protocol version"),
            ("hexforge-net 1", "followed by a role"),
            ("hexforge-net 1 dance", "unknown role `dance`"),
            ("hexforge-net 1 join seat=0", "a seat is a number from 1"),
            ("hexforge-net 1 join match=a/b", "a match code is"),
            ("hexforge-net 1 relay-accept", "peer=ID"),
            ("step", "no step number"),
            ("step 1 hash zz action end_turn", "not a state hash"),
            ("step 1 hash 01", "no action"),
            ("step 1 action end_turn", "no hash"),
            (
                "step 1 hash 01 pick x action end_turn",
                "not an option's number",
            ),
            ("step 1 hash 01 action", "an empty action"),
            ("hash 0 01", "not a step number"),
            ("hash 1", "takes 2 words"),
            ("hash 1 12345678901234567", "not a state hash"),
            ("assign 0", "not a seat number"),
            ("accept now", "takes nothing after it"),
            ("refuse", "followed by the reason"),
            ("peer x", "not a peer number"),
        ];
        for (frame, expected) in cases {
            let e = Message::parse(frame).expect_err(frame);
            assert!(
                e.to_string().contains(expected),
                "`{frame}`: {e} (expected `{expected}`)"
            );
        }
    }

    #[test]
    fn texts_stay_on_one_line() {
        let m = Message::Notice("a\nb".into());
        assert_eq!(m.to_string(), "notice a b");
    }
}

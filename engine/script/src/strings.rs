//! Bounded string functions. Lua's pattern functions (`string.find`, `match`, `gmatch`, `gsub`)
//! run in C, where the instruction limit cannot reach: a pattern like `.-.-.-.-b` on a long
//! string could run for hours. Here they are Lua 5.4's matcher written again with every step
//! counted against the call's instruction budget, on subjects of at most [`PATTERN_MAX`] bytes.
//! The sizes the other functions may build are capped by [`BUILD_MAX`]
//! (docs/LUA_API.md, "The sandbox").

use crate::stack::script_position;
use mlua::{Function, Lua, MultiValue, Table, Value, Variadic};
use std::cell::RefCell;
use std::rc::Rc;

/// The longest string the pattern functions run on, in bytes.
pub(crate) const PATTERN_MAX: usize = 1 << 20;

/// The longest string `string.rep`, `string.format`, `table.concat` and `string.gsub` may build,
/// in bytes.
pub(crate) const BUILD_MAX: usize = 4 << 20;

/// Bytes of string work counted as one instruction.
pub(crate) const BYTES_PER_INSTRUCTION: usize = 16;

/// Counts `n` instructions of library work against the running call's budget; an error once
/// the budget is spent.
pub(crate) type Charge = Rc<dyn Fn(&Lua, u64) -> mlua::Result<()>>;

/// `1234567` as `1,234,567`.
pub(crate) fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

const MAXCAPTURES: usize = 32;
const MAXCCALLS: usize = 200;
const CAP_UNFINISHED: isize = -1;
const CAP_POSITION: isize = -2;
const SPECIALS: &[u8] = b"^$*+?.([%-";
/// Matcher steps between two charges to the budget.
const TICK: u64 = 1024;

/// A failed call: a message of ours (a pattern error, a cap), an error of Lua's own library
/// function behind a wrapper, or an error that goes on up as it is (the budget is spent, or a
/// replacement function failed).
enum Fail {
    Soft(String),
    Raw(mlua::Error),
    Hard(mlua::Error),
}

impl From<mlua::Error> for Fail {
    fn from(e: mlua::Error) -> Self {
        Fail::Hard(e)
    }
}

type R<T> = Result<T, Fail>;

fn soft<T>(message: impl Into<String>) -> R<T> {
    Err(Fail::Soft(message.into()))
}

/// One capture of a match: bytes of the subject, or a position (`()`, 1-based).
#[derive(Clone, Copy)]
enum Capture {
    Str(usize, usize),
    Pos(usize),
}

/// Lua 5.4's `MatchState`, with its steps counted.
struct Matcher<'a> {
    lua: &'a Lua,
    charge: &'a Charge,
    src: &'a [u8],
    pat: &'a [u8],
    level: usize,
    capture: [(usize, isize); MAXCAPTURES],
    depth: usize,
    pending: u64,
}

impl<'a> Matcher<'a> {
    fn new(lua: &'a Lua, charge: &'a Charge, src: &'a [u8], pat: &'a [u8]) -> Self {
        Matcher {
            lua,
            charge,
            src,
            pat,
            level: 0,
            capture: [(0, 0); MAXCAPTURES],
            depth: MAXCCALLS,
            pending: 0,
        }
    }

    fn p(&self, i: usize) -> u8 {
        self.pat.get(i).copied().unwrap_or(0)
    }

    fn s(&self, i: usize) -> u8 {
        self.src.get(i).copied().unwrap_or(0)
    }

    fn step(&mut self, n: u64) -> R<()> {
        self.pending += n;
        if self.pending >= TICK {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> R<()> {
        let n = std::mem::take(&mut self.pending);
        if n > 0 {
            (self.charge)(self.lua, n)?;
        }
        Ok(())
    }

    fn reprep(&mut self) {
        self.level = 0;
        self.depth = MAXCCALLS;
    }

    fn class_end(&self, p: usize) -> R<usize> {
        let c = self.p(p);
        let mut p = p + 1;
        match c {
            b'%' => {
                if p >= self.pat.len() {
                    return soft("malformed pattern (ends with '%')");
                }
                Ok(p + 1)
            }
            b'[' => {
                if self.p(p) == b'^' {
                    p += 1;
                }
                loop {
                    if p >= self.pat.len() {
                        return soft("malformed pattern (missing ']')");
                    }
                    let c = self.pat[p];
                    p += 1;
                    if c == b'%' && p < self.pat.len() {
                        p += 1;
                    }
                    if self.p(p) == b']' {
                        break;
                    }
                }
                Ok(p + 1)
            }
            _ => Ok(p),
        }
    }

    fn bracket(&self, c: u8, p: usize, ec: usize) -> bool {
        let mut p = p;
        let mut sig = true;
        if self.p(p + 1) == b'^' {
            sig = false;
            p += 1;
        }
        loop {
            p += 1;
            if p >= ec {
                break;
            }
            if self.p(p) == b'%' {
                p += 1;
                if match_class(c, self.p(p)) {
                    return sig;
                }
            } else if self.p(p + 1) == b'-' && p + 2 < ec {
                p += 2;
                if self.p(p - 2) <= c && c <= self.p(p) {
                    return sig;
                }
            } else if self.p(p) == c {
                return sig;
            }
        }
        !sig
    }

    fn single(&self, s: usize, p: usize, ep: usize) -> bool {
        if s >= self.src.len() {
            return false;
        }
        let c = self.src[s];
        match self.p(p) {
            b'.' => true,
            b'%' => match_class(c, self.p(p + 1)),
            b'[' => self.bracket(c, p, ep - 1),
            pc => pc == c,
        }
    }

    fn do_match(&mut self, s: usize, p: usize) -> R<Option<usize>> {
        if self.depth == 0 {
            return soft("pattern too complex");
        }
        self.depth -= 1;
        let r = self.match_here(s, p)?;
        self.depth += 1;
        Ok(r)
    }

    fn match_here(&mut self, mut s: usize, mut p: usize) -> R<Option<usize>> {
        loop {
            self.step(1)?;
            if p == self.pat.len() {
                return Ok(Some(s));
            }
            match self.pat[p] {
                b'(' => {
                    return if self.p(p + 1) == b')' {
                        self.start_capture(s, p + 2, CAP_POSITION)
                    } else {
                        self.start_capture(s, p + 1, CAP_UNFINISHED)
                    };
                }
                b')' => return self.end_capture(s, p + 1),
                b'$' if p + 1 == self.pat.len() => {
                    return Ok((s == self.src.len()).then_some(s));
                }
                b'%' if self.p(p + 1) == b'b' => match self.balance(s, p + 2)? {
                    Some(e) => {
                        s = e;
                        p += 4;
                    }
                    None => return Ok(None),
                },
                b'%' if self.p(p + 1) == b'f' => {
                    p += 2;
                    if self.p(p) != b'[' {
                        return soft("missing '[' after '%f' in pattern");
                    }
                    let ep = self.class_end(p)?;
                    let previous = if s == 0 { 0 } else { self.src[s - 1] };
                    if !self.bracket(previous, p, ep - 1) && self.bracket(self.s(s), p, ep - 1) {
                        p = ep;
                    } else {
                        return Ok(None);
                    }
                }
                b'%' if self.p(p + 1).is_ascii_digit() => match self.back_ref(s, self.p(p + 1))? {
                    Some(e) => {
                        s = e;
                        p += 2;
                    }
                    None => return Ok(None),
                },
                _ => {
                    let ep = self.class_end(p)?;
                    let suffix = self.p(ep);
                    if !self.single(s, p, ep) {
                        if matches!(suffix, b'*' | b'?' | b'-') {
                            p = ep + 1;
                            continue;
                        }
                        return Ok(None);
                    }
                    match suffix {
                        b'?' => {
                            if let Some(r) = self.do_match(s + 1, ep + 1)? {
                                return Ok(Some(r));
                            }
                            p = ep + 1;
                        }
                        b'+' => return self.max_expand(s + 1, p, ep),
                        b'*' => return self.max_expand(s, p, ep),
                        b'-' => return self.min_expand(s, p, ep),
                        _ => {
                            s += 1;
                            p = ep;
                        }
                    }
                }
            }
        }
    }

    fn balance(&mut self, s: usize, p: usize) -> R<Option<usize>> {
        if p + 1 >= self.pat.len() {
            return soft("malformed pattern (missing arguments to '%b')");
        }
        if s >= self.src.len() || self.src[s] != self.pat[p] {
            return Ok(None);
        }
        let (b, e) = (self.pat[p], self.pat[p + 1]);
        let mut open = 1;
        let mut s = s;
        loop {
            s += 1;
            if s >= self.src.len() {
                return Ok(None);
            }
            self.step(1)?;
            if self.src[s] == e {
                open -= 1;
                if open == 0 {
                    return Ok(Some(s + 1));
                }
            } else if self.src[s] == b {
                open += 1;
            }
        }
    }

    fn max_expand(&mut self, s: usize, p: usize, ep: usize) -> R<Option<usize>> {
        let mut i = 0;
        while self.single(s + i, p, ep) {
            self.step(1)?;
            i += 1;
        }
        loop {
            if let Some(r) = self.do_match(s + i, ep + 1)? {
                return Ok(Some(r));
            }
            if i == 0 {
                return Ok(None);
            }
            i -= 1;
        }
    }

    fn min_expand(&mut self, mut s: usize, p: usize, ep: usize) -> R<Option<usize>> {
        loop {
            if let Some(r) = self.do_match(s, ep + 1)? {
                return Ok(Some(r));
            }
            if self.single(s, p, ep) {
                s += 1;
            } else {
                return Ok(None);
            }
        }
    }

    fn start_capture(&mut self, s: usize, p: usize, what: isize) -> R<Option<usize>> {
        if self.level >= MAXCAPTURES {
            return soft("too many captures");
        }
        self.capture[self.level] = (s, what);
        self.level += 1;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.level -= 1;
        }
        Ok(r)
    }

    fn end_capture(&mut self, s: usize, p: usize) -> R<Option<usize>> {
        let Some(l) = (0..self.level)
            .rev()
            .find(|&l| self.capture[l].1 == CAP_UNFINISHED)
        else {
            return soft("invalid pattern capture");
        };
        self.capture[l].1 = (s - self.capture[l].0) as isize;
        let r = self.do_match(s, p)?;
        if r.is_none() {
            self.capture[l].1 = CAP_UNFINISHED;
        }
        Ok(r)
    }

    fn back_ref(&mut self, s: usize, digit: u8) -> R<Option<usize>> {
        let l = i32::from(digit) - i32::from(b'1');
        if l < 0 || l as usize >= self.level || self.capture[l as usize].1 == CAP_UNFINISHED {
            return soft(format!("invalid capture index %{}", l + 1));
        }
        let (init, len) = self.capture[l as usize];
        if len < 0 {
            return Ok(None); // a position capture matches nothing
        }
        let len = len as usize;
        self.step((len / BYTES_PER_INSTRUCTION) as u64)?;
        if self.src.len() - s >= len && self.src[init..init + len] == self.src[s..s + len] {
            Ok(Some(s + len))
        } else {
            Ok(None)
        }
    }

    /// Capture `i` of a match from `s` to `e` (the whole match stands for capture 0 when the
    /// pattern has none).
    fn capture(&self, i: usize, s: usize, e: usize) -> R<Capture> {
        if i >= self.level {
            if i != 0 {
                return soft(format!("invalid capture index %{}", i + 1));
            }
            return Ok(Capture::Str(s, e));
        }
        let (init, len) = self.capture[i];
        match len {
            CAP_UNFINISHED => soft("unfinished capture"),
            CAP_POSITION => Ok(Capture::Pos(init + 1)),
            len => Ok(Capture::Str(init, init + len as usize)),
        }
    }

    /// Every capture, or the whole match if `whole` is given and the pattern has none.
    fn captures(&self, whole: Option<(usize, usize)>) -> R<Vec<Capture>> {
        let n = if self.level == 0 && whole.is_some() {
            1
        } else {
            self.level
        };
        let (s, e) = whole.unwrap_or((0, 0));
        (0..n).map(|i| self.capture(i, s, e)).collect()
    }

    fn value(&self, c: Capture) -> mlua::Result<Value> {
        Ok(match c {
            Capture::Str(a, b) => Value::String(self.lua.create_string(&self.src[a..b])?),
            Capture::Pos(p) => Value::Integer(p as i64),
        })
    }

    fn values(&self, cs: &[Capture]) -> mlua::Result<MultiValue> {
        cs.iter().map(|c| self.value(*c)).collect()
    }
}

fn match_class(c: u8, class: u8) -> bool {
    let res = match class.to_ascii_lowercase() {
        b'a' => c.is_ascii_alphabetic(),
        b'c' => c.is_ascii_control(),
        b'd' => c.is_ascii_digit(),
        b'g' => c.is_ascii_graphic(),
        b'l' => c.is_ascii_lowercase(),
        b'p' => c.is_ascii_punctuation(),
        b's' => c == b' ' || (9..=13).contains(&c),
        b'u' => c.is_ascii_uppercase(),
        b'w' => c.is_ascii_alphanumeric(),
        b'x' => c.is_ascii_hexdigit(),
        b'z' => c == 0, // deprecated in Lua 5.4, still there
        _ => return class == c,
    };
    if class.is_ascii_uppercase() {
        !res
    } else {
        res
    }
}

/// Lua's `posrelatI`: a 1-based start position, negative from the end, as a 0-based offset
/// (may be past the end).
fn start(init: i64, len: usize) -> usize {
    let pos = if init > 0 {
        init as u64
    } else if init == 0 || init < -(len as i64) {
        1
    } else {
        (len as i64 + init + 1) as u64
    };
    usize::try_from(pos - 1).unwrap_or(usize::MAX)
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Nil => "no value",
        Value::Boolean(_) => "boolean",
        Value::Integer(_) | Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Table(_) => "table",
        Value::Function(_) => "function",
        Value::Thread(_) => "thread",
        _ => "userdata",
    }
}

fn bad(n: usize, name: &str, what: &str) -> Fail {
    Fail::Soft(format!("bad argument #{n} to '{name}' ({what})"))
}

fn arg_string(lua: &Lua, args: &[Value], n: usize, name: &str) -> R<mlua::String> {
    let v = args.get(n - 1).cloned().unwrap_or(Value::Nil);
    match &v {
        Value::String(s) => Ok(s.clone()),
        Value::Integer(_) | Value::Number(_) => lua
            .coerce_string(v)?
            .ok_or_else(|| bad(n, name, "string expected")),
        other => Err(bad(
            n,
            name,
            &format!("string expected, got {}", type_name(other)),
        )),
    }
}

fn arg_int(lua: &Lua, args: &[Value], n: usize, name: &str, default: i64) -> R<i64> {
    match args.get(n - 1).cloned().unwrap_or(Value::Nil) {
        Value::Nil => Ok(default),
        Value::Integer(i) => Ok(i),
        v @ (Value::Number(_) | Value::String(_)) => match lua.coerce_integer(v.clone())? {
            Some(i) => Ok(i),
            None if matches!(v, Value::Number(_)) => {
                Err(bad(n, name, "number has no integer representation"))
            }
            None => Err(bad(n, name, "number expected, got string")),
        },
        other => Err(bad(
            n,
            name,
            &format!("number expected, got {}", type_name(&other)),
        )),
    }
}

/// The subject of a pattern function, refused past [`PATTERN_MAX`].
fn subject(lua: &Lua, args: &[Value], name: &str) -> R<mlua::String> {
    let s = arg_string(lua, args, 1, name)?;
    let len = s.as_bytes().len();
    if len > PATTERN_MAX {
        return soft(format!(
            "string.{name} on a {}-byte string: the pattern functions (find, match, gmatch, gsub) run on strings of at most {} bytes",
            grouped(len as u64),
            grouped(PATTERN_MAX as u64)
        ));
    }
    Ok(s)
}

/// Lua's `lmemfind`, charged per byte looked at.
fn plain_find(m: &mut Matcher<'_>, init: usize) -> R<Option<usize>> {
    let (hay, needle) = (m.src, m.pat);
    if needle.is_empty() {
        return Ok(Some(init));
    }
    let mut i = init;
    while i + needle.len() <= hay.len() {
        let Some(skip) = hay[i..=hay.len() - needle.len()]
            .iter()
            .position(|&b| b == needle[0])
        else {
            m.step(((hay.len() - i) / BYTES_PER_INSTRUCTION) as u64)?;
            return Ok(None);
        };
        i += skip;
        m.step(((skip + needle.len()) / BYTES_PER_INSTRUCTION) as u64 + 1)?;
        if hay[i..i + needle.len()] == *needle {
            return Ok(Some(i));
        }
        i += 1;
    }
    Ok(None)
}

/// `string.find` (`find`) and `string.match`.
fn find_aux(lua: &Lua, charge: &Charge, args: &[Value], find: bool) -> R<MultiValue> {
    let name = if find { "find" } else { "match" };
    let s = subject(lua, args, name)?;
    let p = arg_string(lua, args, 2, name)?;
    let init = arg_int(lua, args, 3, name, 1)?;
    let (src, pat) = (s.as_bytes(), p.as_bytes());
    let init = start(init, src.len());
    if init > src.len() {
        return Ok(MultiValue::from(vec![Value::Nil]));
    }
    let plain = args
        .get(3)
        .is_some_and(|v| !matches!(v, Value::Nil | Value::Boolean(false)));
    if find && (plain || !pat.iter().any(|c| SPECIALS.contains(c))) {
        let mut m = Matcher::new(lua, charge, &src, &pat);
        let found = plain_find(&mut m, init)?;
        m.flush()?;
        return Ok(MultiValue::from(match found {
            Some(at) => vec![
                Value::Integer(at as i64 + 1),
                Value::Integer((at + pat.len()) as i64),
            ],
            None => vec![Value::Nil],
        }));
    }
    let anchor = pat.first() == Some(&b'^');
    let body = if anchor { &pat[1..] } else { &pat[..] };
    let mut m = Matcher::new(lua, charge, &src, body);
    let mut s1 = init;
    loop {
        m.reprep();
        if let Some(e) = m.do_match(s1, 0)? {
            m.flush()?;
            return Ok(if find {
                let caps = m.captures(None)?;
                let mut out = m.values(&caps)?;
                out.push_front(Value::Integer(e as i64));
                out.push_front(Value::Integer(s1 as i64 + 1));
                out
            } else {
                let caps = m.captures(Some((s1, e)))?;
                m.values(&caps)?
            });
        }
        s1 += 1;
        if anchor || s1 > src.len() {
            break;
        }
    }
    m.flush()?;
    Ok(MultiValue::from(vec![Value::Nil]))
}

/// What `string.gmatch` keeps between two calls of its iterator.
struct Gmatch {
    s: mlua::String,
    p: mlua::String,
    src: usize,
    last: Option<usize>,
}

fn gmatch_next(lua: &Lua, charge: &Charge, g: &mut Gmatch) -> R<MultiValue> {
    let (s, p) = (g.s.clone(), g.p.clone());
    let (src, pat) = (s.as_bytes(), p.as_bytes());
    let mut m = Matcher::new(lua, charge, &src, &pat);
    let mut at = g.src;
    while at <= src.len() {
        m.reprep();
        if let Some(e) = m.do_match(at, 0)?
            && Some(e) != g.last
        {
            g.src = e;
            g.last = Some(e);
            m.flush()?;
            let caps = m.captures(Some((at, e)))?;
            return Ok(m.values(&caps)?);
        }
        at += 1;
    }
    g.src = src.len() + 1;
    m.flush()?;
    Ok(MultiValue::new())
}

/// Appends the replacement string `repl` (with `%0`-`%9` and `%%`) for a match.
fn add_string(m: &Matcher<'_>, out: &mut Vec<u8>, repl: &[u8], s: usize, e: usize) -> R<()> {
    let mut i = 0;
    while i < repl.len() {
        let c = repl[i];
        i += 1;
        if c != b'%' {
            out.push(c);
            continue;
        }
        let d = repl.get(i).copied().unwrap_or(0);
        i += 1;
        if d == b'%' {
            out.push(b'%');
        } else if d == b'0' {
            out.extend_from_slice(&m.src[s..e]);
        } else if d.is_ascii_digit() {
            match m.capture(usize::from(d - b'1'), s, e)? {
                Capture::Str(a, b) => out.extend_from_slice(&m.src[a..b]),
                Capture::Pos(p) => out.extend_from_slice(p.to_string().as_bytes()),
            }
        } else {
            return soft("invalid use of '%' in replacement string");
        }
    }
    Ok(())
}

fn gsub(lua: &Lua, charge: &Charge, args: &[Value]) -> R<MultiValue> {
    let s = subject(lua, args, "gsub")?;
    let p = arg_string(lua, args, 2, "gsub")?;
    let (src, pat) = (s.as_bytes(), p.as_bytes());
    let repl = args.get(2).cloned().unwrap_or(Value::Nil);
    let repl_text = match &repl {
        Value::String(_) | Value::Integer(_) | Value::Number(_) => Some(
            lua.coerce_string(repl.clone())?
                .map(|t| t.as_bytes().to_vec())
                .unwrap_or_default(),
        ),
        Value::Function(_) | Value::Table(_) => None,
        other => {
            return Err(bad(
                3,
                "gsub",
                &format!("string/function/table expected, got {}", type_name(other)),
            ));
        }
    };
    let max = arg_int(lua, args, 4, "gsub", src.len() as i64 + 1)?;
    let anchor = pat.first() == Some(&b'^');
    let body = if anchor { &pat[1..] } else { &pat[..] };
    let mut m = Matcher::new(lua, charge, &src, body);
    let mut out: Vec<u8> = Vec::new();
    let mut at = 0;
    let mut last = None;
    let mut n: i64 = 0;
    let mut changed = false;
    while n < max {
        m.reprep();
        match m.do_match(at, 0)? {
            Some(e) if Some(e) != last => {
                n += 1;
                let before = out.len();
                match &repl_text {
                    Some(text) => {
                        add_string(&m, &mut out, text, at, e)?;
                        changed = true;
                    }
                    None => {
                        let v = match &repl {
                            Value::Function(f) => {
                                let caps = m.captures(Some((at, e)))?;
                                let args = m.values(&caps)?;
                                m.flush()?;
                                f.call::<Value>(args)?
                            }
                            Value::Table(t) => {
                                let key = m.value(m.capture(0, at, e)?)?;
                                m.flush()?;
                                t.get::<Value>(key)?
                            }
                            _ => Value::Nil,
                        };
                        match v {
                            Value::Nil | Value::Boolean(false) => {
                                out.extend_from_slice(&src[at..e]);
                            }
                            Value::String(_) | Value::Integer(_) | Value::Number(_) => {
                                let t = lua.coerce_string(v)?.map(|t| t.as_bytes().to_vec());
                                out.extend_from_slice(&t.unwrap_or_default());
                                changed = true;
                            }
                            other => {
                                return soft(format!(
                                    "invalid replacement value (a {})",
                                    type_name(&other)
                                ));
                            }
                        }
                    }
                }
                m.step(((out.len() - before) / BYTES_PER_INSTRUCTION) as u64)?;
                at = e;
                last = Some(e);
            }
            _ if at < src.len() => {
                out.push(src[at]);
                at += 1;
            }
            _ => break,
        }
        if out.len() > BUILD_MAX {
            return soft(build_error("string.gsub", out.len()));
        }
        if anchor {
            break;
        }
    }
    m.flush()?;
    let result = if changed {
        out.extend_from_slice(&src[at.min(src.len())..]);
        if out.len() > BUILD_MAX {
            return soft(build_error("string.gsub", out.len()));
        }
        Value::String(lua.create_string(&out)?)
    } else {
        Value::String(s.clone())
    };
    Ok(MultiValue::from(vec![result, Value::Integer(n)]))
}

/// The message for a string past [`BUILD_MAX`].
pub(crate) fn build_error(what: &str, len: usize) -> String {
    format!(
        "{what} would build a string of {} bytes or more: library functions build strings of at most {} bytes",
        grouped(len as u64),
        grouped(BUILD_MAX as u64)
    )
}

/// The text of an mlua error without mlua's traceback.
fn plain_text(e: &mlua::Error) -> String {
    match e {
        mlua::Error::CallbackError { cause, .. } => plain_text(cause),
        mlua::Error::RuntimeError(m) => m.split("\nstack traceback:").next().unwrap_or(m).into(),
        other => other.to_string(),
    }
}

/// Turns a call's outcome into Lua results or an error naming the script's line (as Lua's own
/// `error` would: `file:line: message`); `name` is the function's name in Lua's messages.
fn outcome(lua: &Lua, r: R<MultiValue>, name: &str) -> mlua::Result<MultiValue> {
    let positioned = |message: String| match script_position(lua) {
        Some(at) => mlua::Error::runtime(format!("{at}: {message}")),
        None => mlua::Error::runtime(message),
    };
    match r {
        Ok(v) => Ok(v),
        Err(Fail::Soft(message)) => Err(positioned(message)),
        Err(Fail::Raw(e)) => {
            let text = plain_text(&e).replace("to '?'", &format!("to '{name}'"));
            if text.contains(".lua:") {
                Err(mlua::Error::runtime(text))
            } else {
                Err(positioned(text))
            }
        }
        Err(Fail::Hard(e)) => Err(e),
    }
}

/// Installs the bounded pattern functions, the capped builders (`string.rep`,
/// `string.format`, `table.concat`) and the counted functions (`string.sub`, `table.insert`, ...)
/// into the state's libraries, before the sandbox copies them. `safe_tostring` is how `%s` shows a value without an address. Their
/// errors are Lua errors naming the script's line.
pub(crate) fn install(lua: &Lua, charge: Charge, safe_tostring: Function) -> mlua::Result<()> {
    install_counted(lua, &charge)?;
    let string: Table = lua.globals().raw_get("string")?;
    let table: Table = lua.globals().raw_get("table")?;
    let c = charge.clone();
    string.raw_set(
        "find",
        lua.create_function(move |lua, args: Variadic<Value>| {
            outcome(lua, find_aux(lua, &c, &args, true), "find")
        })?,
    )?;
    let c = charge.clone();
    string.raw_set(
        "match",
        lua.create_function(move |lua, args: Variadic<Value>| {
            outcome(lua, find_aux(lua, &c, &args, false), "match")
        })?,
    )?;
    let c = charge.clone();
    string.raw_set(
        "gsub",
        lua.create_function(move |lua, args: Variadic<Value>| {
            outcome(lua, gsub(lua, &c, &args), "gsub")
        })?,
    )?;
    let c = charge.clone();
    string.raw_set(
        "gmatch",
        lua.create_function(move |lua, args: Variadic<Value>| {
            let made = (|| -> R<Function> {
                let s = subject(lua, &args, "gmatch")?;
                let p = arg_string(lua, &args, 2, "gmatch")?;
                let len = s.as_bytes().len();
                let init = start(arg_int(lua, &args, 3, "gmatch", 1)?, len).min(len + 1);
                let state = RefCell::new(Gmatch {
                    s,
                    p,
                    src: init,
                    last: None,
                });
                let c = c.clone();
                Ok(lua.create_function(move |lua, ()| {
                    outcome(lua, gmatch_next(lua, &c, &mut state.borrow_mut()), "gmatch")
                })?)
            })();
            outcome(
                lua,
                made.map(|f| MultiValue::from(vec![Value::Function(f)])),
                "gmatch",
            )
        })?,
    )?;
    let raw: Function = string.raw_get("rep")?;
    let c = charge.clone();
    string.raw_set(
        "rep",
        lua.create_function(move |lua, args: Variadic<Value>| {
            let r = (|| -> R<MultiValue> {
                let len = |v: Option<&Value>| match v {
                    Some(Value::String(s)) => s.as_bytes().len() as f64,
                    Some(v @ (Value::Integer(_) | Value::Number(_))) => lua
                        .coerce_string(v.clone())
                        .ok()
                        .flatten()
                        .map_or(0.0, |s| s.as_bytes().len() as f64),
                    _ => 0.0,
                };
                let n = match args.get(1) {
                    Some(Value::Integer(n)) => *n as f64,
                    Some(Value::Number(n)) => *n,
                    _ => 0.0,
                };
                if n > 0.0 {
                    let size = len(args.first()) * n + len(args.get(2)) * (n - 1.0);
                    if size > BUILD_MAX as f64 {
                        return soft(build_error("string.rep", size as usize));
                    }
                    // Lua loops once per copy, even when the copies are empty.
                    c(lua, (size + n) as u64 / BYTES_PER_INSTRUCTION as u64)?;
                }
                raw.call::<MultiValue>(args.clone()).map_err(Fail::Raw)
            })();
            outcome(lua, r, "rep")
        })?,
    )?;
    let raw: Function = string.raw_get("format")?;
    let c = charge.clone();
    string.raw_set(
        "format",
        lua.create_function(move |lua, mut args: Variadic<Value>| {
            let r = (|| -> R<MultiValue> {
                if let Some(Value::String(fmt)) = args.first() {
                    let fmt = fmt.as_bytes();
                    if has_address_conversion(&fmt) {
                        return soft(
                            "string.format: `%p` is not allowed: an address differs from one process to another",
                        );
                    }
                    let size = fmt.len()
                        + args[1..]
                            .iter()
                            .map(|v| match v {
                                Value::String(s) => s.as_bytes().len() + 100,
                                _ => 500,
                            })
                            .sum::<usize>();
                    if size > BUILD_MAX {
                        return soft(build_error("string.format", size));
                    }
                    c(lua, (size / BYTES_PER_INSTRUCTION) as u64)?;
                }
                for v in args.iter_mut().skip(1) {
                    if matches!(
                        v,
                        Value::Table(_) | Value::Function(_) | Value::Thread(_) | Value::UserData(_)
                    ) {
                        *v = safe_tostring.call::<Value>(v.clone())?;
                    }
                }
                raw.call::<MultiValue>(args.clone()).map_err(Fail::Raw)
            })();
            outcome(lua, r, "format")
        })?,
    )?;
    let raw: Function = table.raw_get("concat")?;
    let c = charge;
    table.raw_set(
        "concat",
        lua.create_function(move |lua, args: Variadic<Value>| {
            let r = (|| -> R<MultiValue> {
                if let Some(Value::Table(t)) = args.first() {
                    let int = |v: Option<&Value>, d: i64| match v {
                        None | Some(Value::Nil) => Some(d),
                        Some(Value::Integer(i)) => Some(*i),
                        Some(Value::Number(n)) if n.fract() == 0.0 => Some(*n as i64),
                        _ => None,
                    };
                    let sep = match args.get(1) {
                        Some(Value::String(s)) => s.as_bytes().len(),
                        _ => 0,
                    };
                    if let (Some(a), Some(b)) =
                        (int(args.get(2), 1), int(args.get(3), t.raw_len() as i64))
                        && b >= a
                    {
                        c(lua, (b - a) as u64 / 4 + 1)?;
                        let mut size = 0usize;
                        for k in a..=b {
                            size += sep
                                + match t.raw_get::<Value>(k)? {
                                    Value::String(s) => s.as_bytes().len(),
                                    _ => 24,
                                };
                            if size > BUILD_MAX {
                                return soft(build_error("table.concat", size));
                            }
                        }
                        c(lua, (size / BYTES_PER_INSTRUCTION) as u64)?;
                    }
                }
                raw.call::<MultiValue>(args.clone()).map_err(Fail::Raw)
            })();
            outcome(lua, r, "concat")
        })?,
    )?;
    Ok(())
}

/// How much work a library call will do, in instructions, from its arguments.
type Cost = fn(&[Value]) -> u64;

/// Replaces `table[name]` by a function that counts `cost` against the budget, then calls the
/// original; its errors name the script's line.
fn counted(
    lua: &Lua,
    charge: &Charge,
    table: &Table,
    name: &'static str,
    cost: Cost,
) -> mlua::Result<()> {
    let raw: Function = table.raw_get(name)?;
    let c = charge.clone();
    let f = lua.create_function(move |lua, args: Variadic<Value>| {
        let n = cost(&args);
        if n > 0 {
            c(lua, n)?;
        }
        outcome(lua, raw.call::<MultiValue>(args).map_err(Fail::Raw), name)
    })?;
    table.raw_set(name, f)
}

/// Replaces `string[name]` (whose output size only its run can tell: `pack`, `unpack`) by a
/// function that counts the strings it returns once it has run, and refuses them past
/// [`BUILD_MAX`].
fn counted_after(
    lua: &Lua,
    charge: &Charge,
    string: &Table,
    name: &'static str,
) -> mlua::Result<()> {
    let raw: Function = string.raw_get(name)?;
    let c = charge.clone();
    let f = lua.create_function(move |lua, args: Variadic<Value>| {
        let r = raw
            .call::<MultiValue>(args)
            .map_err(Fail::Raw)
            .and_then(|out| {
                let size: usize = out
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => s.as_bytes().len(),
                        _ => 0,
                    })
                    .sum();
                if size > BUILD_MAX {
                    return soft(build_error(&format!("string.{name}"), size));
                }
                c(lua, (size / BYTES_PER_INSTRUCTION) as u64)?;
                Ok(out)
            });
        outcome(lua, r, name)
    })?;
    string.raw_set(name, f)
}

/// Argument `i` as a whole number: `Some(default)` when absent, `None` when it is no number.
fn whole(args: &[Value], i: usize, default: i64) -> Option<i64> {
    match args.get(i) {
        None | Some(Value::Nil) => Some(default),
        Some(Value::Integer(n)) => Some(*n),
        Some(Value::Number(n)) if n.fract() == 0.0 && n.abs() < 9.0e18 => Some(*n as i64),
        _ => None,
    }
}

fn string_len(args: &[Value], i: usize) -> Option<i64> {
    match args.get(i) {
        Some(Value::String(s)) => Some(s.as_bytes().len() as i64),
        _ => None,
    }
}

fn table_len(args: &[Value], i: usize) -> Option<i64> {
    match args.get(i) {
        Some(Value::Table(t)) => Some(t.raw_len() as i64),
        _ => None,
    }
}

/// Lua's `posrelat` for a range: how many items from `i` to `j` of `len`.
fn span(len: i64, i: i64, j: i64) -> u64 {
    let i = if i < 0 {
        if i < -len { 1 } else { len + i + 1 }
    } else {
        i.max(1)
    };
    let j = if j < 0 { len + j + 1 } else { j.min(len) };
    if i > j { 0 } else { (j - i + 1) as u64 }
}

/// Items from `a` to `b`, however far apart.
fn between(a: i64, b: i64) -> u64 {
    u64::try_from(i128::from(b) - i128::from(a) + 1).unwrap_or(0)
}

const B: u64 = BYTES_PER_INSTRUCTION as u64;

fn cost_bytes(a: &[Value]) -> u64 {
    string_len(a, 0).map_or(0, |l| l as u64 / B)
}

fn cost_sub(a: &[Value]) -> u64 {
    match (string_len(a, 0), whole(a, 1, 1), whole(a, 2, -1)) {
        (Some(l), Some(i), Some(j)) => span(l, i, j) / B,
        _ => 0,
    }
}

fn cost_byte(a: &[Value]) -> u64 {
    let i = whole(a, 1, 1);
    match (string_len(a, 0), i, i.and_then(|i| whole(a, 2, i))) {
        (Some(l), Some(i), Some(j)) => span(l, i, j) / 4,
        _ => 0,
    }
}

fn cost_shift(a: &[Value]) -> u64 {
    table_len(a, 0).map_or(0, |n| n as u64 / 8)
}

fn cost_move(a: &[Value]) -> u64 {
    match (whole(a, 1, 0), whole(a, 2, 0)) {
        (Some(f), Some(e)) => between(f, e) / 4,
        _ => 0,
    }
}

fn cost_unpack(a: &[Value]) -> u64 {
    let n = table_len(a, 0).unwrap_or(0);
    match (whole(a, 1, 1), whole(a, 2, n)) {
        (Some(i), Some(j)) => between(i, j) / 4,
        _ => 0,
    }
}

/// Counts the work of the standard functions whose cost grows with their arguments (strings by
/// their bytes, tables by their length).
fn install_counted(lua: &Lua, charge: &Charge) -> mlua::Result<()> {
    let g = lua.globals();
    let string: Table = g.raw_get("string")?;
    let table: Table = g.raw_get("table")?;
    let utf8: Table = g.raw_get("utf8")?;
    for name in ["upper", "lower", "reverse"] {
        counted(lua, charge, &string, name, cost_bytes)?;
    }
    counted(lua, charge, &string, "sub", cost_sub)?;
    counted(lua, charge, &string, "byte", cost_byte)?;
    counted_after(lua, charge, &string, "pack")?;
    counted_after(lua, charge, &string, "unpack")?;
    counted(lua, charge, &utf8, "len", cost_bytes)?;
    counted(lua, charge, &utf8, "offset", cost_bytes)?;
    counted(lua, charge, &utf8, "codepoint", cost_byte)?;
    counted(lua, charge, &g, "tonumber", cost_bytes)?;
    counted(lua, charge, &table, "insert", cost_shift)?;
    counted(lua, charge, &table, "remove", cost_shift)?;
    counted(lua, charge, &table, "move", cost_move)?;
    counted(lua, charge, &table, "unpack", cost_unpack)
}

/// Whether a format string has a `%p` conversion (flags, width and precision allowed between).
fn has_address_conversion(fmt: &[u8]) -> bool {
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            i += 1;
            continue;
        }
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            i += 1;
            continue;
        }
        while fmt
            .get(i)
            .is_some_and(|c| b"-+ #0.".contains(c) || c.is_ascii_digit())
        {
            i += 1;
        }
        if fmt.get(i) == Some(&b'p') {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh Lua state with the bounded functions as `find`, `match`, `gmatch`, `gsub` (the
    /// state's own `string` functions kept as they are), charging into `spent`.
    fn state(limit: u64) -> (Lua, Rc<std::cell::Cell<u64>>) {
        let lua = Lua::new();
        let spent = Rc::new(std::cell::Cell::new(0u64));
        let s = spent.clone();
        let charge: Charge = Rc::new(move |_, n| {
            s.set(s.get() + n);
            if s.get() > limit {
                Err(mlua::Error::runtime("budget spent"))
            } else {
                Ok(())
            }
        });
        let original: Table = lua.globals().get("string").expect("string");
        let kept = lua.create_table().expect("table");
        for pair in original.pairs::<Value, Value>() {
            let (k, v) = pair.expect("pair");
            kept.raw_set(k, v).expect("copy");
        }
        let tostring: Function = lua.globals().get("tostring").expect("tostring");
        install(&lua, charge, tostring).expect("install");
        let g = lua.globals();
        for name in ["find", "match", "gsub", "gmatch"] {
            g.set(name, original.get::<Function>(name).expect(name))
                .expect(name);
            original
                .set(name, kept.get::<Function>(name).expect(name))
                .expect(name);
        }
        (lua, spent)
    }

    /// Every case gives the same results as Lua's own functions.
    #[test]
    fn the_bounded_functions_agree_with_luas() {
        let (lua, _) = state(u64::MAX);
        let cases = [
            r#"string.find("hello world", "o w")"#,
            r#"string.find("hello world", "o", 6)"#,
            r#"string.find("hello world", "l+")"#,
            r#"string.find("hello", "")"#,
            r#"string.find("hello", "", 10)"#,
            r#"string.find("hello", "", 6)"#,
            r#"string.find("hello", "l", -2)"#,
            r#"string.find("a.b", ".", 1, true)"#,
            r#"string.find("key = value", "(%w+)%s*=%s*(%w+)")"#,
            r#"string.find("  x", "^%s*()")"#,
            r#"string.match("key = value", "(%w+)%s*=%s*(%w+)")"#,
            r#"string.match("hello", "h(.-)o")"#,
            r#"string.match("hello", "()ll()")"#,
            r#"string.match("THE (quick) fox", "%((%a+)%)")"#,
            r#"string.match("f(a(b)c)d", "%b()")"#,
            r#"string.match("THE quick", "%f[%a]%a+", 4)"#,
            r#"string.match("abcabc", "(abc)%1")"#,
            r#"string.match("2024-01-15", "(%d+)-(%d+)-(%d+)")"#,
            r#"string.match("x = [[y]]", "%[%[(.*)%]%]")"#,
            r#"string.match("a-b", "[a%-]+")"#,
            r#"string.match("]x", "[]]")"#,
            r#"string.match("hello", "[^aeiou]+", 2)"#,
            r#"string.match("  trim  ", "^%s*(.-)%s*$")"#,
            r#"string.match("abc", "a?b?c?d?")"#,
            r#"string.match("\0a", "%z?a")"#,
            r#"string.match(12345, "3(4)")"#,
            r#"string.gsub("hello world", "o", "0")"#,
            r#"string.gsub("hello world", "(%w+)", "<%1>")"#,
            r#"string.gsub("hello world", "%w+", "%0 %0", 1)"#,
            r#"string.gsub("abc", "", "-")"#,
            r#"string.gsub("hello", "l", { l = "L" })"#,
            r#"string.gsub("hello", ".", function(c) if c == "l" then return 1.5 end end)"#,
            r#"string.gsub("$name is $age", "%$(%w+)", { name = "Ann", age = 7 })"#,
            r#"string.gsub("abc", "^a", "x")"#,
            r#"string.gsub("abc", "()", "%1")"#,
            r#"string.gsub("x", "x", "%%")"#,
        ];
        for case in cases {
            let ours = case
                .replace("string.find", "find")
                .replace("string.match", "match")
                .replace("string.gsub", "gsub");
            let want: Vec<Value> = lua
                .load(format!("return {{ {case} }}"))
                .eval::<Table>()
                .expect(case)
                .sequence_values()
                .collect::<mlua::Result<_>>()
                .expect(case);
            let got: Vec<Value> = lua
                .load(format!("return {{ {ours} }}"))
                .eval::<Table>()
                .expect(case)
                .sequence_values()
                .collect::<mlua::Result<_>>()
                .expect(case);
            let show = |v: &[Value]| {
                v.iter()
                    .map(|x| format!("{:?}", x.to_string().unwrap_or_default()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(show(&got), show(&want), "{case}");
        }
        let walk = |gm: &str| {
            lua.load(format!(
                r#"local out = {{}}
                   for k, v in {gm}("a=1, b=2, c=3", "(%w+)=(%w+)") do out[#out+1] = k .. v end
                   for w in {gm}("one two", "%a*") do out[#out+1] = "[" .. w .. "]" end
                   for a, b in {gm}("hello", "()(l*)", 2) do out[#out+1] = a .. b end
                   return out"#
            ))
            .eval::<Vec<String>>()
            .expect("gmatch")
        };
        assert_eq!(walk("gmatch"), walk("string.gmatch"));
    }

    /// Thousands of generated patterns and subjects: the same results, or the same error, as
    /// Lua's own functions.
    #[test]
    fn generated_patterns_agree_with_luas() {
        let (lua, _) = state(u64::MAX);
        let pieces = [
            "a", "b", ".", "%a", "%d", "%s", "[ab]", "[^a]", "[a-c]", "*", "+", "-", "?", "(", ")",
            "()", "^", "$", "%1", "%b()", "%f[%a]", "%", "[", "]", " ",
        ];
        let letters = ["a", "b", "1", " ", "(", ")", "c", "aa", "ab"];
        let mut seed = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let run = |code: &str| -> String {
            match lua.load(code).eval::<MultiValue>() {
                Ok(v) => v
                    .iter()
                    .map(|x| format!("{x:?}"))
                    .collect::<Vec<_>>()
                    .join(","),
                Err(e) => {
                    let text = plain_text(&e);
                    // Lua's own messages carry the chunk's position; ours have none here.
                    let text = text.rsplit("]:1: ").next().unwrap_or(&text).to_string();
                    format!("error: {text}")
                }
            }
        };
        for _ in 0..2000 {
            let pattern: String = (0..1 + next(5))
                .map(|_| pieces[next(pieces.len())])
                .collect();
            let subject: String = (0..next(8)).map(|_| letters[next(letters.len())]).collect();
            let init = next(5) as i64 - 2;
            let (p, s) = (format!("{pattern:?}"), format!("{subject:?}"));
            for (ours, theirs) in [
                (
                    format!("return find({s}, {p}, {init})"),
                    format!("return string.find({s}, {p}, {init})"),
                ),
                (
                    format!("return match({s}, {p})"),
                    format!("return string.match({s}, {p})"),
                ),
                (
                    format!("return gsub({s}, {p}, \"<%0>\", 3)"),
                    format!("return string.gsub({s}, {p}, \"<%0>\", 3)"),
                ),
                (
                    format!(
                        "local t = {{}} for a, b in gmatch({s}, {p}) do t[#t + 1] = tostring(a) .. tostring(b) end return table.concat(t, '|')"
                    ),
                    format!(
                        "local t = {{}} for a, b in string.gmatch({s}, {p}) do t[#t + 1] = tostring(a) .. tostring(b) end return table.concat(t, '|')"
                    ),
                ),
            ] {
                assert_eq!(run(&ours), run(&theirs), "{theirs}");
            }
        }
    }

    #[test]
    fn pattern_errors_are_lua_errors_with_luas_words() {
        let (lua, _) = state(u64::MAX);
        for (pattern, words) in [
            ("'%'", "malformed pattern (ends with '%')"),
            ("'[a'", "malformed pattern (missing ']')"),
            ("'(a'", "unfinished capture"),
            ("'a)'", "invalid pattern capture"),
            ("'%1'", "invalid capture index %1"),
            ("'%f'", "missing '[' after '%f' in pattern"),
            ("'%b'", "missing arguments to '%b'"),
        ] {
            let e = lua
                .load(format!("return match('abc', {pattern})"))
                .eval::<Value>()
                .expect_err(pattern)
                .to_string();
            assert!(e.contains(words), "{pattern}: {e}");
        }
        let e = lua
            .load("return gsub('abc', 'b', '%2')")
            .eval::<Value>()
            .expect_err("no capture 2")
            .to_string();
        assert!(e.contains("invalid capture index %2"), "{e}");
        let e = lua
            .load("return find(nil, 'x')")
            .eval::<Value>()
            .expect_err("nil")
            .to_string();
        assert!(
            e.contains("bad argument #1 to 'find' (string expected, got no value)"),
            "{e}"
        );
    }

    #[test]
    fn a_pattern_bomb_spends_the_budget_and_stops() {
        let (lua, spent) = state(2_000_000);
        let started = std::time::Instant::now();
        let e = lua
            .load(r#"local s = string.rep("a", 100000) return find(s, ".-.-.-.-.-b")"#)
            .eval::<Value>()
            .expect_err("stopped");
        assert!(e.to_string().contains("budget spent"), "{e}");
        assert!(spent.get() > 2_000_000);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn subjects_past_the_cap_are_refused() {
        let (lua, _) = state(u64::MAX);
        let e = lua
            .load(r#"return match(string.rep("a", 2000000), "a")"#)
            .eval::<Value>()
            .expect_err("too long")
            .to_string();
        assert!(
            e.contains("string.match on a 2,000,000-byte string")
                && e.contains("at most 1,048,576 bytes"),
            "{e}"
        );
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
    }
}

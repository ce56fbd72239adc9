//! Reading a compiled Lua 5.4 chunk (as `string.dump` writes it) for what the host needs to
//! know of a script without running it: whether any function it defines assigns one of its
//! upvalues (`OP_SETUPVAL`), the only way a local that outlives a call can be given a new value
//! once the chunk has run; and which globals its functions read, at which lines
//! (`OP_GETTABUP` on `_ENV`), for the warning about a global nothing defines.

/// The opcode that assigns an upvalue (`UpValue[B] := R[A]`), in Lua 5.4's numbering.
const OP_SETUPVAL: u32 = 10;

/// The opcode that reads a field with a constant string key of a table an upvalue holds
/// (`R[A] := UpValue[B][K[C]]`): a global read when the upvalue is `_ENV`.
const OP_GETTABUP: u32 = 11;

/// The opcode that marks a local "to be closed" (`local x <close> = ...`).
const OP_TBC: u32 = 55;

/// The mark of an instruction whose line is given whole, in the absolute line list.
const ABSOLUTE_LINE: i8 = -0x80;

/// What a chunk's functions do that the host looks at before it runs them, each with its line.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Facts {
    /// Every global read (a name read off `_ENV`), in the chunk's order.
    pub(crate) global_reads: Vec<(String, u32)>,
    /// The lines of the `local x <close>` declarations.
    pub(crate) to_be_closed: Vec<u32>,
}

/// What the functions of the chunk `dump` do ([`Facts`]), its own body included. `None` when
/// `dump` is not a chunk this reader knows, or was dumped without its debug information (the
/// names of upvalues and the lines it needs).
pub(crate) fn facts(dump: &[u8]) -> Option<Facts> {
    let mut r = Reader { bytes: dump, at: 0 };
    r.header()?;
    let mut out = Facts::default();
    r.reads(&mut out)?;
    Some(out)
}

/// The globals the chunk `dump` reads ([`Facts::global_reads`]).
#[cfg(test)]
fn global_reads(dump: &[u8]) -> Option<Vec<(String, u32)>> {
    facts(dump).map(|f| f.global_reads)
}

/// Whether a function nested in the chunk `dump` assigns one of its upvalues; the chunk's own
/// body (run once, as it loads) is not counted. `None` when `dump` is not a Lua 5.4 chunk of the
/// layout this reader knows (64-bit integers and floats, 32-bit instructions): then nothing can
/// be said, and the caller assumes it does.
pub(crate) fn assigns_upvalues(dump: &[u8]) -> Option<bool> {
    let mut r = Reader { bytes: dump, at: 0 };
    r.header()?;
    let mut found = false;
    r.function(true, &mut found)?;
    Some(found)
}

/// A position in a dump.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// The chunk's header, up to its main function: a Lua 5.4 chunk with 32-bit instructions and
    /// 64-bit numbers, or `None`.
    fn header(&mut self) -> Option<()> {
        if self.take(4)? != b"\x1bLua" || self.byte()? != 0x54 || self.byte()? != 0 {
            return None;
        }
        if self.take(6)? != b"\x19\x93\r\n\x1a\n" || self.take(3)? != [4, 8, 8] {
            return None;
        }
        // The check integer and the check float.
        self.take(16)?;
        // How many upvalues the main function has.
        self.byte()?;
        Some(())
    }

    /// A string's bytes as text (`None` for the absent string).
    fn text(&mut self) -> Option<Option<String>> {
        let n = self.size()?;
        if n == 0 {
            return Some(None);
        }
        Some(Some(
            String::from_utf8_lossy(self.take(n - 1)?).into_owned(),
        ))
    }

    /// One function and those nested in it, adding what each does to `out`.
    fn reads(&mut self, out: &mut Facts) -> Option<()> {
        self.string()?; // source
        let defined = self.size()?;
        self.size()?; // last line defined
        self.take(3)?; // parameters, vararg, stack size
        let n = self.size()?;
        let code: Vec<u32> = self
            .take(n.checked_mul(4)?)?
            .chunks_exact(4)
            .map(|i| u32::from_le_bytes([i[0], i[1], i[2], i[3]]))
            .collect();
        let mut constants: Vec<Option<String>> = Vec::new();
        for _ in 0..self.size()? {
            constants.push(match self.byte()? {
                0 | 1 | 17 => None,
                3 | 19 => {
                    self.take(8)?;
                    None
                }
                4 | 20 => self.text()?,
                _ => return None,
            });
        }
        let upvalues = self.size()?;
        self.take(upvalues.checked_mul(3)?)?;
        // The nested functions come before this one's debug information: their reads are put
        // after this one's, which keeps each function's reads in order.
        let mut nested = Facts::default();
        for _ in 0..self.size()? {
            self.reads(&mut nested)?;
        }
        let count = self.size()?;
        let deltas: Vec<i8> = self
            .take(count)?
            .iter()
            .map(|b| i8::from_le_bytes([*b]))
            .collect();
        let mut absolute = Vec::new();
        for _ in 0..self.size()? {
            absolute.push((self.size()?, self.size()?));
        }
        for _ in 0..self.size()? {
            self.string()?;
            self.size()?;
            self.size()?;
        }
        let mut names = Vec::new();
        for _ in 0..self.size()? {
            names.push(self.text()?);
        }
        if names.len() != upvalues || deltas.len() != code.len() {
            return None; // stripped: no names, no lines
        }
        // Each instruction's line, as `luaG_getfuncline` works it out.
        let mut line = defined as i64;
        let mut next = absolute.iter().peekable();
        for (pc, word) in code.iter().enumerate() {
            match next.peek() {
                Some((at, whole)) if *at == pc => {
                    line = *whole as i64;
                    next.next();
                }
                _ if deltas[pc] != ABSOLUTE_LINE => line += i64::from(deltas[pc]),
                _ => {}
            }
            let at = u32::try_from(line).unwrap_or(0);
            if word & 0x7f == OP_TBC {
                out.to_be_closed.push(at);
                continue;
            }
            if word & 0x7f != OP_GETTABUP {
                continue;
            }
            let (b, c) = ((word >> 16) & 0xff, (word >> 24) & 0xff);
            let env = names.get(b as usize).and_then(|n| n.as_deref()) == Some("_ENV");
            if let (true, Some(Some(name))) = (env, constants.get(c as usize)) {
                out.global_reads.push((name.clone(), at));
            }
        }
        out.global_reads.extend(nested.global_reads);
        out.to_be_closed.extend(nested.to_be_closed);
        Some(())
    }

    fn take(&mut self, n: usize) -> Option<&[u8]> {
        let end = self.at.checked_add(n)?;
        let s = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(s)
    }

    fn byte(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }

    /// A size or an integer as `lundump.c` writes them: seven bits a byte, most significant
    /// first, the last byte's high bit set.
    fn size(&mut self) -> Option<usize> {
        let mut x: usize = 0;
        loop {
            let b = self.byte()?;
            x = x.checked_mul(128)? | usize::from(b & 0x7f);
            if b & 0x80 != 0 {
                return Some(x);
            }
        }
    }

    /// A string: its size plus one (0 for none), then its bytes.
    fn string(&mut self) -> Option<()> {
        let n = self.size()?;
        if n > 0 {
            self.take(n - 1)?;
        }
        Some(())
    }

    /// One function and the functions nested in it; `top` for the chunk's own body.
    fn function(&mut self, top: bool, found: &mut bool) -> Option<()> {
        self.string()?; // source
        self.size()?; // line defined
        self.size()?; // last line defined
        self.take(3)?; // parameters, vararg, stack size
        let n = self.size()?;
        let code = self.take(n.checked_mul(4)?)?;
        if !top
            && code.chunks_exact(4).any(|i| {
                let word = u32::from_le_bytes([i[0], i[1], i[2], i[3]]);
                word & 0x7f == OP_SETUPVAL
            })
        {
            *found = true;
        }
        for _ in 0..self.size()? {
            match self.byte()? {
                // nil, false, true
                0 | 1 | 17 => {}
                // an integer, a float
                3 | 19 => {
                    self.take(8)?;
                }
                // a short or a long string
                4 | 20 => self.string()?,
                _ => return None,
            }
        }
        let upvalues = self.size()?;
        self.take(upvalues.checked_mul(3)?)?;
        for _ in 0..self.size()? {
            self.function(false, found)?;
        }
        // Debug information: line deltas, absolute lines, locals, upvalue names.
        let n = self.size()?;
        self.take(n)?;
        for _ in 0..self.size()? {
            self.size()?;
            self.size()?;
        }
        for _ in 0..self.size()? {
            self.string()?;
            self.size()?;
            self.size()?;
        }
        for _ in 0..self.size()? {
            self.string()?;
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlua::Lua;

    fn dump(source: &str, strip: bool) -> Vec<u8> {
        let lua = Lua::new();
        lua.load(source)
            .into_function()
            .expect("compiles")
            .dump(strip)
    }

    #[test]
    fn a_hook_that_assigns_a_file_local_is_found_and_one_that_reads_it_is_not() {
        let reads =
            "local n = 3\nlocal function f() return n + 1 end\nreturn function() return f() end\n";
        let writes = "local n = 3\nreturn function() n = n + 1 return n end\n";
        // A nested closure assigning a local of the call it was made in counts too (the reader
        // cannot tell whose local it is).
        let inner =
            "return function() local k = 0; local function bump() k = k + 1 end; bump() end\n";
        // The chunk's own body assigning its locals as it loads does not.
        let body = "local n = 1\nn = n + 1\nreturn function() return n end\n";
        for strip in [true, false] {
            assert_eq!(assigns_upvalues(&dump(reads, strip)), Some(false));
            assert_eq!(assigns_upvalues(&dump(writes, strip)), Some(true));
            assert_eq!(assigns_upvalues(&dump(inner, strip)), Some(true));
            assert_eq!(assigns_upvalues(&dump(body, strip)), Some(false));
        }
    }

    #[test]
    fn every_kind_of_constant_is_read_past() {
        let src = "return function() local t = { 1, 2.5, 'short', string.rep('x', 3) .. ('y'):rep(60), true, false, nil, 2^63 } return #t end, function() local u = 0; return function() u = 1 end end\n";
        assert_eq!(assigns_upvalues(&dump(src, false)), Some(true));
        let long = format!("return function() return '{}' end\n", "z".repeat(300));
        assert_eq!(assigns_upvalues(&dump(&long, false)), Some(false));
    }

    #[test]
    fn the_globals_a_chunk_reads_are_found_with_their_lines() {
        let src = "local x = helper\nlocal function f(a)\n  local y = a\n  return lin(a),\n    on_ray(y)\nend\nreturn function() return math.max(1, 2) + #string.rep('a', 3) end\n";
        let reads = global_reads(&dump(src, false)).expect("a dump with its debug information");
        assert_eq!(
            reads,
            [
                ("helper".to_string(), 1),
                ("lin".to_string(), 4),
                ("on_ray".to_string(), 5),
                ("math".to_string(), 7),
                ("string".to_string(), 7),
            ]
        );
        // A long function reaches the lines given whole.
        let long = format!(
            "return function()\n  local v = 0\n{}  return far_away + v\nend\n",
            "  v = v * 3 + 1\n".repeat(300)
        );
        assert_eq!(
            global_reads(&dump(&long, false)),
            Some(vec![("far_away".to_string(), 303)])
        );
        // A local or a field is no global.
        assert_eq!(
            global_reads(&dump(
                "local t = {}\nreturn function() return t.x end\n",
                false
            )),
            Some(vec![])
        );
        // Stripped, nothing can be said.
        assert_eq!(global_reads(&dump(src, true)), None);
    }

    #[test]
    fn a_to_be_closed_local_is_found_at_its_line() {
        let src = "local a = 1\nreturn function()\n  local g <close> = nil\n  return a\nend\n";
        let f = facts(&dump(src, false)).expect("read");
        assert_eq!(f.to_be_closed, [3]);
        assert_eq!(
            facts(&dump("return 1\n", false))
                .expect("read")
                .to_be_closed,
            Vec::<u32>::new()
        );
    }

    #[test]
    fn what_is_not_a_dump_is_not_read() {
        assert_eq!(assigns_upvalues(b""), None);
        assert_eq!(assigns_upvalues(b"return 1"), None);
        let mut cut = dump("return function() end\n", false);
        cut.truncate(cut.len() / 2);
        assert_eq!(assigns_upvalues(&cut), None);
    }
}

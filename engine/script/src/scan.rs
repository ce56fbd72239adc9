//! Reading a list of targets a script returned (`{ {q, r}, { tile = "army/tile" }, "none" }`) in
//! one protected call into Lua: the reverse of [`crate::build`]. Reading it a value at a time
//! through mlua costs a reference and a stack guard per value, which for the lists rules and
//! instants return after every action is most of what reading them costs.
//!
//! Only well-formed lists are read here; anything else (a float, a named field that is not a
//! whole number, an entry of another type) stops the scan, and the caller reads the list again
//! the slow way, which words the error.
//!
//! The named fields of a table handed to a method (`fx:edge{ hex = .., edge = .. }`) are read the
//! same way, in one pass ([`fields`]).

use mlua::{Lua, MultiValue, Table, Value, ffi};

/// One entry of a target list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Target {
    /// `"none"`: the action may be taken with no target.
    None,
    /// A hex `{q, r}` or `{ q = .., r = .. }`.
    Hex(i64, i64),
    /// A tile `{ tile = "army/tile" }`: its id is `text[range]` of the scan.
    Tile(std::ops::Range<usize>),
}

/// A scan's entries, and the tile ids they name, kept between scans so a scan allocates nothing
/// once they have grown.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// The entries in list order.
    pub(crate) entries: Vec<Target>,
    /// The bytes of the tile ids, which [`Target::Tile`] ranges index.
    pub(crate) text: Vec<u8>,
}

impl Scan {
    /// Reads `list` (with `tile_key`, the Lua string `"tile"`): `Ok(true)` when every entry is
    /// well formed and now in `entries`, `Ok(false)` when one is not (read it the slow way for
    /// the message), an error for a Lua error (none is expected: nothing here allocates but the
    /// stack room it asks for first).
    pub(crate) fn read(
        &mut self,
        lua: &Lua,
        list: &Table,
        tile_key: &mlua::String,
    ) -> mlua::Result<bool> {
        self.entries.clear();
        self.text.clear();
        let mut plain = true;
        let (entries, text) = (&mut self.entries, &mut self.text);
        // SAFETY: the closure calls the Lua C API on the state it is given, whose stack holds
        // the list (1) and the key (2), after growing the stack for the three values it pushes
        // at most; it reads with raw gets, which run no metamethod and raise no error, so no
        // Lua error unwinds through it after the stack check (a Rust allocation failure aborts
        // the process, it does not unwind). It leaves an empty stack.
        #[allow(unsafe_code)]
        unsafe {
            lua.exec_raw::<()>((list, tile_key), |state| {
                ffi::luaL_checkstack(state, 4, c"reading a target list".as_ptr());
                let n = ffi::lua_rawlen(state, 1);
                for i in 1..=n {
                    match scan_entry(state, i as ffi::lua_Integer, text) {
                        Some(t) => entries.push(t),
                        None => {
                            plain = false;
                            break;
                        }
                    }
                }
                ffi::lua_settop(state, 0);
            })?;
        }
        Ok(plain)
    }

    /// The id of a [`Target::Tile`] entry, as text.
    pub(crate) fn tile_id(&self, range: &std::ops::Range<usize>) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.text[range.clone()])
    }
}

/// Entry `i` of the list at stack index 1 (the key `"tile"` at 2), or `None` when it is not well
/// formed; the stack is as it was afterwards.
///
/// # Safety
/// `state` is a live Lua state with a table at index 1, a string at 2, and room for three values.
#[allow(unsafe_code)]
unsafe fn scan_entry(
    state: *mut ffi::lua_State,
    i: ffi::lua_Integer,
    text: &mut Vec<u8>,
) -> Option<Target> {
    unsafe {
        let found = match ffi::lua_rawgeti(state, 1, i) {
            ffi::LUA_TSTRING => (bytes(state, -1) == b"none").then_some(Target::None),
            ffi::LUA_TTABLE => table_entry(state, text),
            _ => None,
        };
        ffi::lua_settop(state, 2);
        found
    }
}

/// The entry in the table on top of the stack: a tile or a hex.
///
/// # Safety
/// As [`scan_entry`], with the entry's table on top.
#[allow(unsafe_code)]
unsafe fn table_entry(state: *mut ffi::lua_State, text: &mut Vec<u8>) -> Option<Target> {
    unsafe {
        ffi::lua_pushvalue(state, 2);
        match ffi::lua_rawget(state, -2) {
            ffi::LUA_TNIL => ffi::lua_pop(state, 1),
            ffi::LUA_TSTRING => {
                let start = text.len();
                text.extend_from_slice(bytes(state, -1));
                return Some(Target::Tile(start..text.len()));
            }
            _ => return None,
        }
        let q = int_at(state, 1)?;
        let r = int_at(state, 2)?;
        Some(Target::Hex(q, r))
    }
}

/// The whole number at list index `n` of the table on top of the stack, if it is one.
///
/// # Safety
/// As [`table_entry`].
#[allow(unsafe_code)]
unsafe fn int_at(state: *mut ffi::lua_State, n: ffi::lua_Integer) -> Option<i64> {
    unsafe {
        ffi::lua_rawgeti(state, -1, n);
        let v = (ffi::lua_isinteger(state, -1) != 0).then(|| ffi::lua_tointeger(state, -1));
        ffi::lua_pop(state, 1);
        v
    }
}

/// The values of the fields `known` of `t`, `nil` for those it lacks, read in one protected call
/// (one pass of `next`, raw, as `pairs` reads): `None` when `t` holds a key not in `known`, which
/// the caller then names (reading the table again the slow way, to word the message).
pub(crate) fn fields<const N: usize>(
    lua: &Lua,
    t: &Table,
    known: [&str; N],
) -> mlua::Result<Option<[Value; N]>> {
    let n = i32::try_from(N).unwrap_or(i32::MAX);
    let mut unknown = false;
    // SAFETY: the closure calls the Lua C API on the state it is given, whose stack holds the
    // table (1), after growing the stack for the N values, the next key and the value it pushes;
    // it walks the table with `lua_next`, which runs no metamethod and raises no error for a key
    // it gave, and moves values with `lua_copy` and `lua_pop`: nothing in it raises a Lua error
    // after the stack check, and it owns nothing with a destructor. It leaves the N values on the
    // stack, which become the result.
    #[allow(unsafe_code)]
    let values: MultiValue = unsafe {
        lua.exec_raw(t, |state| {
            ffi::luaL_checkstack(state, n + 3, c"reading a table's fields".as_ptr());
            for _ in 0..N {
                ffi::lua_pushnil(state);
            }
            ffi::lua_pushnil(state);
            while ffi::lua_next(state, 1) != 0 {
                let slot = (ffi::lua_type(state, -2) == ffi::LUA_TSTRING)
                    .then(|| {
                        let key = bytes(state, -2);
                        known.iter().position(|k| k.as_bytes() == key)
                    })
                    .flatten();
                match slot {
                    // Slot i is at stack index 2 + i.
                    Some(i) => ffi::lua_copy(state, -1, 2 + i as i32),
                    None => unknown = true,
                }
                ffi::lua_pop(state, 1);
            }
            ffi::lua_remove(state, 1);
        })?
    };
    if unknown {
        return Ok(None);
    }
    let mut out: [Value; N] = std::array::from_fn(|_| Value::Nil);
    for (slot, v) in out.iter_mut().zip(values) {
        *slot = v;
    }
    Ok(Some(out))
}

/// The bytes of the string at `idx`.
///
/// # Safety
/// The value at `idx` is a string (a number would be converted in place, which allocates).
#[allow(unsafe_code)]
unsafe fn bytes<'a>(state: *mut ffi::lua_State, idx: i32) -> &'a [u8] {
    unsafe {
        let mut len = 0usize;
        let p = ffi::lua_tolstring(state, idx, &mut len);
        std::slice::from_raw_parts(p.cast::<u8>(), len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(src: &str) -> (bool, Scan) {
        let lua = Lua::new();
        let list: Table = lua.load(src).eval().expect("a list");
        let key = lua.create_string("tile").expect("key");
        let mut s = Scan::default();
        let plain = s.read(&lua, &list, &key).expect("reads");
        (plain, s)
    }

    #[test]
    fn named_fields_are_read_in_one_pass_and_an_unknown_key_refuses_the_table() {
        let lua = Lua::new();
        let t: Table = lua
            .load(r#"return { edge = 2, hex = { 1, -1 }, add = "armor" }"#)
            .eval()
            .expect("a table");
        let [hex, edge, lasts, add] = fields(&lua, &t, ["hex", "edge", "lasts", "add"])
            .expect("reads")
            .expect("all known");
        assert!(matches!(hex, Value::Table(_)));
        assert_eq!(edge, Value::Integer(2));
        assert_eq!(lasts, Value::Nil);
        assert_eq!(
            add.as_string().map(|s| s.to_string_lossy()),
            Some("armor".into())
        );
        assert!(fields(&lua, &t, ["hex", "edge"]).expect("reads").is_none());
        let listed: Table = lua.load("return { 5, edge = 1 }").eval().expect("a table");
        assert!(fields(&lua, &listed, ["edge"]).expect("reads").is_none());
        let empty = lua.create_table().expect("a table");
        assert_eq!(
            fields(&lua, &empty, ["edge"]).expect("reads"),
            Some([Value::Nil])
        );
    }

    #[test]
    fn a_plain_list_of_hexes_tiles_and_none_is_read_in_order() {
        let (plain, s) = scan(r#"return { {1, -2}, "none", { tile = "a/b" }, {0, 0} }"#);
        assert!(plain);
        assert_eq!(
            s.entries,
            [
                Target::Hex(1, -2),
                Target::None,
                Target::Tile(0..3),
                Target::Hex(0, 0)
            ]
        );
        assert_eq!(s.tile_id(&(0..3)), "a/b");
    }

    #[test]
    fn anything_unusual_is_left_to_the_slow_reader() {
        for src in [
            "return { {1.5, 2} }",
            "return { { q = 1, r = 2 } }",
            r#"return { "nowhere" }"#,
            "return { { tile = 3 } }",
            "return { 7 }",
            "return { {1} }",
        ] {
            assert!(!scan(src).0, "{src}");
        }
    }

    #[test]
    fn a_list_with_metamethods_is_read_raw() {
        // Raw reads: an `__index` that would make up entries is never run.
        let (plain, s) = scan(
            "return setmetatable({ {2, 3} }, { __index = function() error('ran') end, __len = function() return 9 end })",
        );
        assert!(plain);
        assert_eq!(s.entries, [Target::Hex(2, 3)]);
    }
}

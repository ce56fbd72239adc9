//! Tables handed to scripts, built in one protected call into Lua: what a script reads of the
//! board costs one crossing from Rust into Lua for the whole table, not one per field.
//!
//! A [`Build`] records the steps (open a table, set a field, close it into its parent) and
//! [`Build::finish`] carries them out with the Lua C API inside a single protected call, so a
//! memory error there (the mod's memory cap) is a Lua error like any other.

use mlua::{Lua, Table, ffi};
use std::borrow::Cow;
use std::ffi::CStr;

/// A value set in a table: what scripts read of the engine is made of these.
#[derive(Clone, Debug)]
pub(crate) enum Scalar<'a> {
    /// An integer.
    Int(i64),
    /// A boolean.
    Bool(bool),
    /// A string.
    Str(Cow<'a, str>),
    /// The string `a/b` (a tile's full id from its army's and its own), made in Lua without a
    /// Rust string for it.
    Path(&'a str, &'a str),
}

impl From<i64> for Scalar<'_> {
    fn from(v: i64) -> Self {
        Scalar::Int(v)
    }
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl From<$t> for Scalar<'_> {
            fn from(v: $t) -> Self {
                Scalar::Int(i64::from(v))
            }
        }
    )*};
}
int_scalar!(i8, i16, i32, u8, u16, u32);

impl From<usize> for Scalar<'_> {
    fn from(v: usize) -> Self {
        Scalar::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<bool> for Scalar<'_> {
    fn from(v: bool) -> Self {
        Scalar::Bool(v)
    }
}

impl<'a> From<&'a str> for Scalar<'a> {
    fn from(v: &'a str) -> Self {
        Scalar::Str(Cow::Borrowed(v))
    }
}

impl From<String> for Scalar<'_> {
    fn from(v: String) -> Self {
        Scalar::Str(Cow::Owned(v))
    }
}

/// Where a value or a finished inner table goes in the table below it.
#[derive(Clone, Copy, Debug)]
enum Key {
    Field(&'static CStr),
    Item(i64),
}

/// One step of a build.
#[derive(Debug)]
enum Step<'a> {
    /// A new table on top, with room for `items` list entries and `fields` named ones.
    Open { items: i32, fields: i32 },
    /// Sets a value in the table on top.
    Set(Key, Scalar<'a>),
    /// Takes the table on top off and sets it in the table below it.
    Close(Key),
}

/// The steps of one table handed to a script, carried out by [`Build::finish`].
#[derive(Debug, Default)]
pub(crate) struct Build<'a> {
    steps: Vec<Step<'a>>,
    depth: i32,
    deepest: i32,
}

impl<'a> Build<'a> {
    /// A build whose outer table has room for `items` list entries and `fields` named ones.
    pub(crate) fn new(items: usize, fields: usize) -> Self {
        let mut b = Build {
            // Room for the outer table's steps, the most a build of one flat table takes.
            steps: Vec::with_capacity(items + fields + 1),
            depth: 0,
            deepest: 0,
        };
        b.open(items, fields);
        b
    }

    /// Opens an inner table with room for `items` list entries and `fields` named ones; the next
    /// sets go into it until [`Build::close_field`] or [`Build::close_item`].
    pub(crate) fn open(&mut self, items: usize, fields: usize) -> &mut Self {
        self.steps.push(Step::Open {
            items: room(items),
            fields: room(fields),
        });
        self.depth += 1;
        self.deepest = self.deepest.max(self.depth);
        self
    }

    /// Sets field `key` of the open table to `value`.
    pub(crate) fn field(&mut self, key: &'static CStr, value: impl Into<Scalar<'a>>) -> &mut Self {
        self.steps.push(Step::Set(Key::Field(key), value.into()));
        self
    }

    /// Sets list entry `n` (from 1) of the open table to `value`.
    pub(crate) fn item(&mut self, n: usize, value: impl Into<Scalar<'a>>) -> &mut Self {
        self.steps
            .push(Step::Set(Key::Item(index(n)), value.into()));
        self
    }

    /// Closes the open inner table into field `key` of the table it was opened in.
    pub(crate) fn close_field(&mut self, key: &'static CStr) -> &mut Self {
        self.close(Key::Field(key))
    }

    /// Closes the open inner table into list entry `n` (from 1) of the table it was opened in.
    pub(crate) fn close_item(&mut self, n: usize) -> &mut Self {
        self.close(Key::Item(index(n)))
    }

    fn close(&mut self, key: Key) -> &mut Self {
        debug_assert!(self.depth > 1, "closing the outer table of a build");
        self.steps.push(Step::Close(key));
        self.depth -= 1;
        self
    }

    /// Carries the steps out in one protected call and gives the outer table.
    pub(crate) fn finish(self, lua: &Lua) -> mlua::Result<Table> {
        debug_assert_eq!(self.depth, 1, "a build with an inner table left open");
        let steps = &self.steps[..];
        let room = self.deepest + 2;
        // SAFETY: the closure only calls the Lua C API on the state it is given, with a stack
        // grown first for the deepest nesting plus a value and a key; it owns nothing that must
        // be dropped, so a Lua error (out of memory) raised inside it unwinds through no
        // destructor; it leaves exactly the outer table on the stack, which becomes the result.
        #[allow(unsafe_code)]
        unsafe {
            lua.exec_raw::<Table>((), |state| {
                ffi::luaL_checkstack(state, room, c"building a table for a script".as_ptr());
                for step in steps {
                    match step {
                        Step::Open { items, fields } => {
                            ffi::lua_createtable(state, *items, *fields)
                        }
                        Step::Set(key, value) => {
                            push(state, value);
                            set(state, *key);
                        }
                        Step::Close(key) => set(state, *key),
                    }
                }
            })
        }
    }
}

/// A table size hint for `lua_createtable`.
fn room(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(0)
}

/// A list index as Lua counts it.
fn index(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// Pushes `value` on the stack of `state`.
///
/// # Safety
/// `state` is a live Lua state with room for one more value on its stack.
#[allow(unsafe_code)]
unsafe fn push(state: *mut ffi::lua_State, value: &Scalar<'_>) {
    unsafe {
        match value {
            Scalar::Int(n) => ffi::lua_pushinteger(state, *n),
            Scalar::Bool(b) => ffi::lua_pushboolean(state, i32::from(*b)),
            Scalar::Str(s) => {
                ffi::lua_pushlstring(state, s.as_ptr().cast(), s.len());
            }
            Scalar::Path(a, b) => {
                // Put together on the stack of this function (nothing to drop if Lua raises).
                let mut buf = [0u8; 96];
                let n = a.len() + 1 + b.len();
                if n <= buf.len() {
                    buf[..a.len()].copy_from_slice(a.as_bytes());
                    buf[a.len()] = b'/';
                    buf[a.len() + 1..n].copy_from_slice(b.as_bytes());
                    ffi::lua_pushlstring(state, buf.as_ptr().cast(), n);
                } else {
                    ffi::lua_pushlstring(state, a.as_ptr().cast(), a.len());
                    ffi::lua_pushlstring(state, c"/".as_ptr(), 1);
                    ffi::lua_pushlstring(state, b.as_ptr().cast(), b.len());
                    ffi::lua_concat(state, 3);
                }
            }
        }
    }
}

/// Sets the value on top of the stack of `state` at `key` in the table just below it, and pops
/// the value.
///
/// # Safety
/// `state` is a live Lua state with a table just below the value on top of its stack.
#[allow(unsafe_code)]
unsafe fn set(state: *mut ffi::lua_State, key: Key) {
    unsafe {
        match key {
            Key::Field(name) => ffi::lua_setfield(state, -2, name.as_ptr()),
            Key::Item(n) => ffi::lua_rawseti(state, -2, n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_gives_nested_tables_with_every_field_and_item() {
        let lua = Lua::new();
        let long = "a".repeat(90);
        let mut b = Build::new(0, 3);
        b.field(c"id", "army/tile")
            .field(c"path", Scalar::Path("army", "tile"))
            .field(c"long", Scalar::Path(&long, "tile"))
            .field(c"count", 3u8)
            .field(c"hq", true);
        b.open(2, 0)
            .item(1, 4i32)
            .item(2, String::from("x"))
            .close_field(c"list");
        let t = b.finish(&lua).expect("builds");
        lua.globals().set("t", t).expect("sets");
        let seen: String = lua
            .load(r#"return t.path .. " " .. #t.long .. " " .. t.id .. " " .. t.count .. " " .. tostring(t.hq) .. " " .. #t.list .. " " .. t.list[1] .. t.list[2]"#)
            .eval()
            .expect("reads");
        assert_eq!(seen, "army/tile 95 army/tile 3 true 2 4x");
    }

    #[test]
    fn a_build_over_the_memory_cap_is_a_lua_error_not_a_crash() {
        let lua = Lua::new();
        lua.set_memory_limit(lua.used_memory() + 16 * 1024)
            .expect("caps");
        let mut b = Build::new(0, 0);
        let big = "y".repeat(64 * 1024);
        b.field(c"big", big.as_str());
        let e = b.finish(&lua).expect_err("over the cap");
        assert!(matches!(e, mlua::Error::MemoryError(_)), "{e}");
        // The state is still usable afterwards.
        lua.set_memory_limit(0).expect("uncaps");
        let n: i64 = lua.load("return 1 + 1").eval().expect("runs");
        assert_eq!(n, 2);
    }
}

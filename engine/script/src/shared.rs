//! Host objects scripts hold (`ctx`, `plan`, `fx`, `hits`) whose state the host reaches without
//! going through Lua: the userdata holds one handle to the state and the host another, so
//! setting a call up or reading it back is a plain borrow, not a userdata lookup in Lua (mlua
//! checks a userdata's type through its metatable at each borrow).

use mlua::{FromLuaMulti, IntoLuaMulti, Lua, UserDataMethods, UserDataRegistry};
use std::cell::{Cell, Ref, RefCell, RefMut};
use std::rc::Rc;

/// The state of a host object, shared between its userdata and the host.
pub(crate) struct Shared<T>(Rc<RefCell<T>>);

impl<T> Shared<T> {
    /// A new state, and the handle the host keeps (the other goes into the userdata).
    pub(crate) fn new(value: T) -> (Shared<T>, Shared<T>) {
        let rc = Rc::new(RefCell::new(value));
        (Shared(rc.clone()), Shared(rc))
    }

    /// Reads the state; an error if a script's call is changing it at the same moment.
    pub(crate) fn get(&self) -> mlua::Result<Ref<'_, T>> {
        self.0.try_borrow().map_err(|_| in_use())
    }

    /// Changes the state; an error if it is being read or changed at the same moment (a
    /// metamethod of a table handed to one of its methods calling another, say).
    pub(crate) fn get_mut(&self) -> mlua::Result<RefMut<'_, T>> {
        self.0.try_borrow_mut().map_err(|_| in_use())
    }
}

fn in_use() -> mlua::Error {
    mlua::Error::runtime(
        "this object is in use by the call that reached this one: call its methods one at a time",
    )
}

/// Whether a script's call reached past what it was handed: one of the watched methods of a
/// host object ran (a read of the game through `ctx`, an effect asked through `fx`). The host
/// clears it before a call and reads it after (`memo.rs`).
#[derive(Clone, Default)]
pub(crate) struct Watch(Rc<Cell<bool>>);

impl Watch {
    /// Forgets what earlier calls did.
    pub(crate) fn clear(&self) {
        self.0.set(false);
    }

    /// Whether a watched method ran since [`Watch::clear`].
    pub(crate) fn seen(&self) -> bool {
        self.0.get()
    }
}

/// Which methods of a host object a [`Watch`] notes: all but those named in `except`.
pub(crate) struct Watched<'a> {
    /// The flag the methods set.
    pub(crate) watch: &'a Watch,
    /// The methods that read only what a remembered call is keyed by (`memo.rs`).
    pub(crate) except: &'static [&'static str],
}

/// Registers the methods of a shared host object: [`SharedMethods::add_method`] and
/// [`SharedMethods::add_method_mut`] take the same functions as mlua's, of `&T` and `&mut T`.
/// With `watched`, each method but the excepted ones sets the [`Watch`] when it runs.
pub(crate) fn register<T: 'static>(
    lua: &Lua,
    watched: Option<Watched<'_>>,
    f: impl FnOnce(&mut SharedMethods<'_, T>),
) -> mlua::Result<()> {
    lua.register_userdata_type::<Shared<T>>(|reg| {
        f(&mut SharedMethods {
            reg,
            watch: watched.as_ref().map(|w| w.watch.clone()),
            except: watched.as_ref().map_or(&[], |w| w.except),
        })
    })
}

/// The methods of a shared host object being registered.
pub(crate) struct SharedMethods<'a, T> {
    reg: &'a mut UserDataRegistry<Shared<T>>,
    watch: Option<Watch>,
    except: &'static [&'static str],
}

impl<T: 'static> SharedMethods<'_, T> {
    /// The flag a method named `name` sets when it runs, if any.
    fn mark(&self, name: &str) -> Option<Watch> {
        self.watch.clone().filter(|_| !self.except.contains(&name))
    }

    /// A method reading the state.
    pub(crate) fn add_method<M, A, R>(&mut self, name: &str, method: M)
    where
        M: Fn(&Lua, &T, A) -> mlua::Result<R> + 'static,
        A: FromLuaMulti,
        R: IntoLuaMulti,
    {
        let mark = self.mark(name);
        self.reg.add_method(name, move |lua, s: &Shared<T>, a| {
            if let Some(w) = &mark {
                w.0.set(true);
            }
            method(lua, &*s.get()?, a)
        });
    }

    /// A method changing the state.
    pub(crate) fn add_method_mut<M, A, R>(&mut self, name: &str, method: M)
    where
        M: Fn(&Lua, &mut T, A) -> mlua::Result<R> + 'static,
        A: FromLuaMulti,
        R: IntoLuaMulti,
    {
        let mark = self.mark(name);
        self.reg.add_method(name, move |lua, s: &Shared<T>, a| {
            if let Some(w) = &mark {
                w.0.set(true);
            }
            method(lua, &mut *s.get_mut()?, a)
        });
    }
}

//! Where a script is: the script frames on the Lua call stack (files of a mod or of the shared
//! library, never the sandbox's own code), as `file:line` for messages and a short traceback.

use mlua::Lua;

/// How many frames a traceback shows.
pub(crate) const TRACEBACK_FRAMES: usize = 4;

/// How deep the stack is searched for script frames (reading a frame costs a walk from the top,
/// so a deep recursion is not read whole).
const DEEPEST: usize = 64;

/// One script frame: its file (as the chunk was named: relative to the mod folder, or
/// `scripts/...` for the shared library), current line and function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Frame {
    pub(crate) file: String,
    pub(crate) line: Option<usize>,
    /// The function's name as its caller knew it, if any.
    pub(crate) name: Option<String>,
    /// The line its function starts on (0 for a file's main chunk).
    pub(crate) defined: usize,
}

impl Frame {
    /// `file:line` (or the file alone when the line is unknown).
    pub(crate) fn at(&self) -> String {
        match self.line {
            Some(l) => format!("{}:{l}", self.file),
            None => self.file.clone(),
        }
    }

    /// One traceback line: `file:line in function 'name'` or `in the function at file:line`.
    pub(crate) fn describe(&self) -> String {
        match (&self.name, self.defined) {
            (Some(n), _) => format!("{} in function '{n}'", self.at()),
            (None, 0) => format!("{} in the file's main chunk", self.at()),
            (None, d) => format!("{} in the function at {}:{d}", self.at(), self.file),
        }
    }
}

/// The script frames on the stack, innermost first, at most `max` of them.
pub(crate) fn script_frames(lua: &Lua, max: usize) -> Vec<Frame> {
    let mut frames = Vec::new();
    for level in 0..DEEPEST {
        if frames.len() >= max {
            break;
        }
        let frame = lua.inspect_stack(level, |d| {
            let source = d.source();
            let file = source.source.as_deref()?.strip_prefix('@')?.to_string();
            let defined = source.line_defined.unwrap_or(0);
            let line = d.current_line();
            let name = d.names().name.map(|n| n.into_owned());
            Some(Frame {
                file,
                line,
                name,
                defined,
            })
        });
        match frame {
            None => break,
            Some(Some(f)) => frames.push(f),
            Some(None) => {}
        }
    }
    frames
}

/// The innermost script frame's `file:line`, if a script is running.
pub(crate) fn script_position(lua: &Lua) -> Option<String> {
    script_frames(lua, 1).first().map(Frame::at)
}

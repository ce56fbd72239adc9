//! The Lua library shipped with the engine (`scripts/` at the top of the repository), built into
//! the binary: the prelude first, then the reusable abilities every mod may bind.

/// Each file's path (as errors name it) and text, in load order.
pub(crate) const LIBRARY: [(&str, &str); 5] = [
    (
        "scripts/prelude.lua",
        include_str!("../../../scripts/prelude.lua"),
    ),
    (
        "scripts/abilities/line_shot.lua",
        include_str!("../../../scripts/abilities/line_shot.lua"),
    ),
    (
        "scripts/abilities/explode.lua",
        include_str!("../../../scripts/abilities/explode.lua"),
    ),
    (
        "scripts/abilities/module_effects.lua",
        include_str!("../../../scripts/abilities/module_effects.lua"),
    ),
    (
        "scripts/abilities/instants.lua",
        include_str!("../../../scripts/abilities/instants.lua"),
    ),
];

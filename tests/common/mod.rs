//! Boards shared by the acceptance suites that fight one battle around one scripted unit.

use hexforge_core::{
    Battlefield, BoardShape, Catalog, Dir, Hex, PlayerSetup, Seat, Setup, TileSetup,
};

/// `unit` at the centre facing north, the enemy's `hq` just north of it and its own `hq` to the
/// south, on the standard board (two players, 20 HP each).
pub fn unit_between_hqs(c: &Catalog, unit: &str, hq: &str) -> Battlefield {
    let at = |id: &str, owner: u8, q: i32, r: i32| TileSetup {
        tile: c
            .find(id)
            .unwrap_or_else(|| panic!("no tile `{id}` in the catalog")),
        owner: Seat::new(owner),
        hex: Hex::new(q, r),
        facing: Dir::N,
        wounds: 0,
    };
    Battlefield::new(
        Setup {
            shape: BoardShape::standard(),
            players: vec![
                PlayerSetup { team: 0, hq_hp: 20 },
                PlayerSetup { team: 1, hq_hp: 20 },
            ],
            tiles: vec![at(unit, 0, 0, 0), at(hq, 1, 0, -1), at(hq, 0, 0, 2)],
        },
        c,
    )
    .expect("legal board")
}

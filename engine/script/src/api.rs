//! What a hook sees and may do: the `ctx` object (the tile, its parameters, the rules, the board,
//! questions to its owner) and the `plan` object (the attacks of an acting unit, or a blast).
//! Both are long-lived userdata whose contents are swapped in for each call, so a call allocates
//! nothing; writes are checked here, so a script can never make an invalid attack.

use crate::build::{Build, Scalar};
use crate::shared::{Watch, Watched};
use hexforge_core::effect::{Effect, InitiativeChange, ScriptedAttack};
use hexforge_core::hooks::{AttackPlan, Blast, PlannedAttack};
use hexforge_core::marker::{Lasts, Mark, MarkOn, MarkerName};
use hexforge_core::tile::ParamValue;
use hexforge_core::{
    AttackKind, Battlefield, BoardShape, Catalog, Cell, Dir, Edge, Hex, Placed, Rules, Seat, Tile,
    TileRef,
};
use mlua::{Lua, Table, UserDataFields, UserDataMethods, Value};
use std::rc::Rc;
use std::sync::Arc;

/// The call a hook runs in: copied in before the call.
pub(crate) struct Call {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) rules: Arc<Rules>,
    pub(crate) field: Option<Battlefield>,
    pub(crate) cell: Option<Cell>,
    pub(crate) tile: Option<TileRef>,
    /// The player who holds a scripted instant whose hook runs (the instant is on no cell).
    pub(crate) player: Option<Seat>,
    pub(crate) ability: usize,
    pub(crate) phase: u8,
    /// The answer of the unit's owner to the question the ability declares (`asks`), asked
    /// before a `plan_attacks` call.
    pub(crate) answer: Option<(&'static str, bool)>,
    /// What initiative hooks add to each unit's values in the battle of the call, by cell index
    /// (empty outside battles).
    pub(crate) initiative_changes: Vec<i8>,
    /// What `gives_to` hooks give in the battle of the call (empty outside battles).
    pub(crate) gifts: Vec<hexforge_core::hooks::Gift>,
    /// The game a game rule's hook runs in (`ctx:game()`); off for tiles' hooks.
    pub(crate) game: GameInfo,
    /// The read-only `ctx:army_tiles` lists built so far, for the catalog they were built from.
    pub(crate) army_lists: std::cell::RefCell<ArmyLists>,
    /// Words handed to scripts again and again (how long a marker lasts, the stage, army ids),
    /// as Lua strings made once (a string made from Rust at every read costs a protected call
    /// into Lua).
    pub(crate) words: std::cell::RefCell<Vec<(Box<str>, mlua::String)>>,
}

/// The most words [`Call::word`] keeps; past them a word is made at each call.
const MAX_WORDS: usize = 64;

impl Call {
    /// Starts a call on `field` with `catalog` and `rules` (shared, not copied, when they are
    /// those of the last call) and the answer of no question; the caller sets the rest.
    pub(crate) fn begin(
        &mut self,
        catalog: &Arc<Catalog>,
        rules: &Arc<Rules>,
        field: &Battlefield,
    ) {
        if !Arc::ptr_eq(&self.catalog, catalog) {
            self.catalog = catalog.clone();
        }
        if !Arc::ptr_eq(&self.rules, rules) {
            self.rules = rules.clone();
        }
        // Copied over the last call's board, keeping its lists' room.
        match &mut self.field {
            Some(f) => f.clone_from(field),
            None => self.field = Some(field.clone()),
        }
        self.answer = None;
    }

    /// `w` as a Lua string, made the first time and kept (strings are values in Lua: a script
    /// cannot change one it is handed).
    pub(crate) fn word(&self, lua: &Lua, w: &str) -> mlua::Result<mlua::String> {
        let mut words = self.words.borrow_mut();
        if let Some((_, s)) = words.iter().find(|(k, _)| &**k == w) {
            return Ok(s.clone());
        }
        let s = lua.create_string(w)?;
        if words.len() < MAX_WORDS {
            words.push((w.into(), s.clone()));
        }
        Ok(s)
    }
}

/// The `ctx:army_tiles` lists of one catalog: an army's tiles change only with the catalog, so
/// each list is built once, frozen (a script cannot change it, so no call leaves anything in it
/// for the next) and handed out again at every call.
#[derive(Default)]
pub(crate) struct ArmyLists {
    /// The catalog the lists were built from (held weakly: its allocation stays, so a new
    /// catalog never takes its address).
    catalog: std::sync::Weak<Catalog>,
    /// Each army's frozen list, by army id.
    lists: Vec<(String, Table)>,
}

/// What `ctx:game()` reads in a game rule's hook, copied in before the call into buffers kept
/// from call to call.
#[derive(Default)]
pub(crate) struct GameInfo {
    /// A game rule's hook runs: the rest holds its game.
    pub(crate) on: bool,
    turn: u16,
    player: Seat,
    battles: u32,
    last_tile_drawn: bool,
    stage: &'static str,
    played: u8,
    placed: u8,
    discarded: bool,
    piles: Vec<PileInfo>,
}

/// One player's piles, as `ctx:game()` reads them.
#[derive(Default)]
struct PileInfo {
    army: String,
    hand: Vec<TileRef>,
    deck: usize,
    discard: Vec<TileRef>,
    reserve: Vec<TileRef>,
}

impl GameInfo {
    /// Copies the game of a rule's hook in.
    pub(crate) fn fill(&mut self, ctx: &hexforge_core::hooks::GameContext<'_>) {
        self.on = true;
        self.turn = ctx.turn;
        self.player = ctx.player;
        self.battles = ctx.battles;
        self.last_tile_drawn = ctx.last_tile_drawn;
        self.stage = ctx.stage;
        self.played = ctx.played;
        self.placed = ctx.placed;
        self.discarded = ctx.discarded;
        self.piles.resize_with(ctx.piles.len(), PileInfo::default);
        for (mine, theirs) in self.piles.iter_mut().zip(ctx.piles) {
            mine.army.clear();
            mine.army.push_str(theirs.army);
            mine.hand.clear();
            mine.hand.extend_from_slice(theirs.hand);
            mine.deck = theirs.deck;
            mine.discard.clear();
            mine.discard.extend_from_slice(theirs.discard);
            mine.reserve.clear();
            mine.reserve.extend_from_slice(theirs.reserve);
        }
    }
}

/// The game of a game rule's hook; an error in a tile's hook.
fn in_game(call: &Call) -> mlua::Result<&GameInfo> {
    if call.game.on {
        Ok(&call.game)
    } else {
        Err(mlua::Error::runtime(
            "the game's turn, hands and piles are read in a game rule's hooks (docs/RULESETS.md, \"Game scripts\"); a tile's hook reads the board",
        ))
    }
}

/// Player `p`'s piles (numbered from 1) in a game rule's hook.
fn pile(call: &Call, p: i64) -> mlua::Result<&PileInfo> {
    let g = in_game(call)?;
    usize::try_from(p - 1)
        .ok()
        .and_then(|i| g.piles.get(i))
        .ok_or_else(|| {
            mlua::Error::runtime(format!(
                "player {p} is not playing: use 1 to {}",
                g.piles.len()
            ))
        })
}

/// The error for a player number `p` that is not playing on `f`.
fn no_player(f: &Battlefield, p: i64) -> mlua::Error {
    mlua::Error::runtime(format!(
        "player {p} is not playing: use 1 to {}",
        f.player_count()
    ))
}

/// Tiles as a list of `army/tile` ids.
fn tile_ids(lua: &Lua, call: &Call, tiles: &[TileRef]) -> mlua::Result<Table> {
    let mut b = Build::new(tiles.len(), 0);
    for (i, x) in tiles.iter().enumerate() {
        let def = call.catalog.get(*x);
        b.item(i + 1, Scalar::Path(&def.army, &def.id));
    }
    b.finish(lua)
}

/// The loaded army `army`, or the error `ctx:WHAT` gives for an id naming none (with the closest
/// loaded army's id).
fn loaded_army<'c>(
    call: &'c Call,
    what: &str,
    army: &str,
) -> mlua::Result<&'c hexforge_core::tile::Army> {
    call.catalog.army(army).ok_or_else(|| {
        let known: Vec<&str> = call
            .catalog
            .armies()
            .iter()
            .map(|a| a.id.as_str())
            .collect();
        mlua::Error::runtime(format!(
            "ctx:{what}: no army `{army}` is loaded{}: name an army by its id, as ctx:army(p) gives it",
            hexforge_core::names::did_you_mean(army, known.iter().copied())
        ))
    })
}

/// `ctx:army_index(id)`: where the tile `army/tile` stands in its army's list
/// (`ctx:army_tiles`), from 1, or `nil` when its army has no such tile; an id that names no
/// loaded army is an error naming it.
fn army_index(call: &Call, id: &str) -> mlua::Result<Option<usize>> {
    let Some((army, tile)) = id.split_once('/') else {
        return Err(mlua::Error::runtime(format!(
            "ctx:army_index: `{id}` is no tile id: write `army/tile`, as ctx:army_tiles lists them"
        )));
    };
    let a = loaded_army(call, "army_index", army)?;
    Ok(a.tiles
        .iter()
        .position(|t| call.catalog.get(*t).id == tile)
        .map(|i| i + 1))
}

/// `ctx:army_tiles(army)`: every tile of a loaded army in its file's order, as `{ id, kind,
/// count }` (`count`: the copies in its draw pile, 0 for a tile only a rule hands out).
fn army_tiles(lua: &Lua, call: &Call, army: &str) -> mlua::Result<Table> {
    let a = loaded_army(call, "army_tiles", army)?;
    let mut cache = call.army_lists.borrow_mut();
    if !std::ptr::eq(cache.catalog.as_ptr(), Arc::as_ptr(&call.catalog)) {
        *cache = ArmyLists {
            catalog: Arc::downgrade(&call.catalog),
            lists: Vec::new(),
        };
    }
    if let Some((_, t)) = cache.lists.iter().find(|(id, _)| id == army) {
        return Ok(t.clone());
    }
    let mut b = Build::new(a.tiles.len(), 0);
    for (i, t) in a.tiles.iter().enumerate() {
        let def = call.catalog.get(*t);
        b.open(0, 3)
            .field(c"id", Scalar::Path(&def.army, &def.id))
            .field(c"kind", def.kind.name())
            .field(c"count", def.count)
            .close_item(i + 1);
    }
    let list = b.finish(lua)?;
    // Every sandbox keeps its `freeze` (sandbox.rs): a list is never handed out unfrozen.
    let frozen: Table = lua
        .app_data_ref::<crate::sandbox::Freezer>()
        .ok_or_else(|| mlua::Error::runtime("ctx:army_tiles: no sandbox to freeze the list in"))?
        .0
        .call(list)?;
    cache.lists.push((army.to_string(), frozen.clone()));
    Ok(frozen)
}

/// `ctx:game()`: `{ turn, player, battles, last_tile_drawn, stage, played, placed, discarded, players = {
/// { army, hand, deck, discard, reserve, hq_hp, team }, ... } }`.
fn game_table(lua: &Lua, call: &Call) -> mlua::Result<Table> {
    if !call.game.on {
        return Err(mlua::Error::runtime(
            "ctx:game() is read in a game rule's hooks (docs/RULESETS.md, \"Game scripts\"); a tile's hook reads the board",
        ));
    }
    let g = &call.game;
    let f = field(call)?;
    let t = lua.create_table()?;
    t.raw_set("turn", g.turn)?;
    t.raw_set("player", g.player.index() + 1)?;
    t.raw_set("battles", g.battles)?;
    t.raw_set("last_tile_drawn", g.last_tile_drawn)?;
    t.raw_set("stage", g.stage)?;
    t.raw_set("played", g.played)?;
    t.raw_set("placed", g.placed)?;
    t.raw_set("discarded", g.discarded)?;
    let ids = |tiles: &[TileRef]| -> mlua::Result<Table> {
        let l = lua.create_table()?;
        for (i, x) in tiles.iter().enumerate() {
            l.raw_set(i + 1, call.catalog.get(*x).full_id())?;
        }
        Ok(l)
    };
    let players = lua.create_table()?;
    for (i, p) in g.piles.iter().enumerate() {
        let seat = Seat::new(i as u8);
        let pt = lua.create_table()?;
        pt.raw_set("army", p.army.as_str())?;
        pt.raw_set("hand", ids(&p.hand)?)?;
        pt.raw_set("deck", p.deck)?;
        pt.raw_set("discard", ids(&p.discard)?)?;
        pt.raw_set("reserve", ids(&p.reserve)?)?;
        pt.raw_set("hq_hp", f.hq_hp(seat))?;
        pt.raw_set("team", f.team(seat) + 1)?;
        players.raw_set(i + 1, pt)?;
    }
    t.raw_set("players", players)?;
    Ok(t)
}

/// The attacks being planned: an [`AttackPlan`] moved in for the call, and the names of the
/// attack kinds as Lua strings, made once: `plan:get` hands them out without making a string at
/// every call (each made from Rust costs a protected call into Lua).
pub(crate) struct Plan(pub(crate) AttackPlan, KindNames);

/// The Lua names of the attack kinds, in [`KINDS`] order.
pub(crate) struct KindNames([mlua::String; KINDS.len()]);

impl Plan {
    /// An empty plan whose kind names live in `lua`.
    pub(crate) fn new(lua: &Lua) -> mlua::Result<Plan> {
        let mut names = Vec::with_capacity(KINDS.len());
        for k in KINDS {
            names.push(lua.create_string(kind_name(k))?);
        }
        let names = names
            .try_into()
            .map_err(|_| mlua::Error::runtime("one name per attack kind"))?;
        Ok(Plan(AttackPlan::default(), KindNames(names)))
    }

    /// The Lua name of `k`.
    fn kind(&self, k: AttackKind) -> mlua::String {
        let i = KINDS.iter().position(|x| *x == k).unwrap_or(0);
        self.1.0[i].clone()
    }
}

pub(crate) fn to_lua(lua: &Lua, v: &ParamValue) -> mlua::Result<Value> {
    Ok(match v {
        ParamValue::Bool(b) => Value::Boolean(*b),
        ParamValue::Int(i) => Value::Integer(*i),
        ParamValue::Float(x) => Value::Number(*x),
        ParamValue::Str(s) => Value::String(lua.create_string(s)?),
        ParamValue::List(l) => {
            let t = lua.create_table()?;
            for (i, x) in l.iter().enumerate() {
                t.raw_set(i + 1, to_lua(lua, x)?)?;
            }
            Value::Table(t)
        }
    })
}

/// The parameters of an ability as a Lua table.
pub(crate) fn params_table(
    lua: &Lua,
    params: &std::collections::BTreeMap<String, ParamValue>,
) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    for (k, v) in params {
        t.raw_set(k.as_str(), to_lua(lua, v)?)?;
    }
    Ok(t)
}

fn kind_name(k: AttackKind) -> &'static str {
    match k {
        AttackKind::Melee => "melee",
        AttackKind::Ranged => "ranged",
        AttackKind::Pierce => "pierce",
        AttackKind::Explosion => "explosion",
    }
}

fn kind_of(name: &str) -> mlua::Result<AttackKind> {
    match name {
        "melee" => Ok(AttackKind::Melee),
        "ranged" => Ok(AttackKind::Ranged),
        "pierce" => Ok(AttackKind::Pierce),
        other => Err(mlua::Error::runtime(format!(
            "unknown attack kind `{other}`: use melee, ranged or pierce"
        ))),
    }
}

fn strength(s: i64) -> mlua::Result<u8> {
    u8::try_from(s)
        .ok()
        .filter(|s| *s <= 9)
        .ok_or_else(|| mlua::Error::runtime(format!("strength {s} is out of range: use 0 to 9")))
}

fn field(call: &Call) -> mlua::Result<&Battlefield> {
    call.field
        .as_ref()
        .ok_or_else(|| mlua::Error::runtime("this hook has no board to read"))
}

/// The tile the hook runs for, on the board.
fn own(call: &Call) -> mlua::Result<(&Battlefield, Cell, Placed)> {
    let f = field(call)?;
    let cell = call
        .cell
        .ok_or_else(|| mlua::Error::runtime("this hook runs for no tile on the board"))?;
    let p = f
        .at(cell)
        .copied()
        .ok_or_else(|| mlua::Error::runtime("the tile has left the board"))?;
    Ok((f, cell, p))
}

/// The player the hook runs for: the owner of its tile, or the player who holds its instant.
fn owner(call: &Call) -> mlua::Result<Seat> {
    match call.player {
        Some(p) => Ok(p),
        None => Ok(own(call)?.2.owner),
    }
}

fn def(call: &Call) -> mlua::Result<&Tile> {
    call.tile
        .map(|t| call.catalog.get(t))
        .ok_or_else(|| mlua::Error::runtime("this hook runs for no tile"))
}

/// What a script reads of a tile on the board: `{ q, r, id, kind, owner, facing, wounds, hq }`.
fn tile_table(lua: &Lua, call: &Call, f: &Battlefield, c: Cell, p: &Placed) -> mlua::Result<Table> {
    let mut b = Build::new(0, TILE_FIELDS);
    tile_fields(&mut b, call, f, c, p);
    b.finish(lua)
}

/// How many fields [`tile_fields`] sets at most.
const TILE_FIELDS: usize = 11;

/// Sets the fields of [`tile_table`] in the open table of `b`.
fn tile_fields<'a>(b: &mut Build<'a>, call: &'a Call, f: &Battlefield, c: Cell, p: &Placed) {
    let def = call.catalog.get(p.tile);
    let h = f.shape().hex(c);
    b.field(c"q", h.q())
        .field(c"r", h.r())
        .field(c"id", Scalar::Path(&def.army, &def.id))
        .field(c"kind", def.kind.name())
        .field(c"owner", p.owner.index() + 1)
        .field(c"team", f.team(p.owner) + 1)
        .field(c"facing", p.facing.index())
        .field(c"wounds", p.wounds)
        .field(c"hq", def.is_hq())
        .field(c"army", def.army.as_str());
    if let Some(l) = f.link_at(c) {
        b.field(c"link", l.id);
    }
}

/// `ctx:link_spots(hexes, size)`: where a unit of `size` hexes standing on `hexes` may take
/// one more: the free hexes (no tile, no segment of a linked unit) from which it can grow into
/// `size` hexes in one piece through free hexes, as `{ q, r }` in the board's reading order.
fn link_spots(lua: &Lua, f: &Battlefield, hexes: &Table, size: i64) -> mlua::Result<Table> {
    let max = hexforge_core::link::MAX_SEGMENTS;
    let size = u32::try_from(size)
        .ok()
        .filter(|s| (2..=max).contains(s))
        .ok_or_else(|| {
            mlua::Error::runtime(format!(
                "ctx:link_spots: a unit of {size} hexes: give 2 to {max}"
            ))
        })?;
    let shape = f.shape();
    let mut anchors = 0u64;
    for (i, h) in hexes.sequence_values::<Table>().enumerate() {
        let h = h.map_err(|_| {
            mlua::Error::runtime(format!(
                "ctx:link_spots: hex {} is not a {{ q, r }} pair",
                i + 1
            ))
        })?;
        let (q, r): (i64, i64) = (h.raw_get(1)?, h.raw_get(2)?);
        let c = shape.cell(hex_arg(q, r)?).ok_or_else(|| {
            mlua::Error::runtime(format!(
                "ctx:link_spots: ({q}, {r}) is off the board: the unit's hexes are on it"
            ))
        })?;
        anchors |= 1u64 << c.index();
    }
    if anchors == 0 {
        return Err(mlua::Error::runtime(
            "ctx:link_spots: give the hexes the unit stands on, a list of { q, r } pairs (one at least)",
        ));
    }
    let free = shape.all() & !f.occupied() & !f.segments();
    let spots = hexforge_core::link::spots(shape, anchors, free, size);
    let mut b = Build::new(spots.count_ones() as usize, 0);
    for (n, h) in shape.hexes_in(spots).enumerate() {
        b.open(2, 0).item(1, h.q()).item(2, h.r()).close_item(n + 1);
    }
    b.finish(lua)
}

/// What a script reads of a linked unit: `{ id, kind, owner, loss, shared, segments }`, its
/// segments `{ q, r, empty }` in reading order.
fn link_table(lua: &Lua, f: &Battlefield, l: &hexforge_core::Link) -> mlua::Result<Table> {
    let mut b = Build::new(0, 6);
    link_fields(&mut b, f, l);
    b.finish(lua)
}

/// Sets the fields of [`link_table`] in the open table of `b`.
fn link_fields(b: &mut Build<'_>, f: &Battlefield, l: &hexforge_core::Link) {
    b.field(c"id", l.id)
        .field(c"kind", l.kind.to_string())
        .field(c"owner", l.owner.index() + 1)
        .field(c"loss", l.loss().name())
        .field(c"shared", l.shared());
    b.open(3, 0);
    for (n, h) in f.shape().hexes_in(l.segments).enumerate() {
        b.open(0, 3)
            .field(c"q", h.q())
            .field(c"r", h.r())
            .field(c"empty", f.at_hex(h).is_none())
            .close_item(n + 1);
    }
    b.close_field(c"segments");
}

/// The seat of player `p` (counted from 1), if the game has one.
fn player_seat(f: &Battlefield, p: i64) -> Option<Seat> {
    usize::try_from(p)
        .ok()
        .filter(|p| (1..=f.player_count()).contains(p))
        .map(|p| Seat::new((p - 1) as u8))
}

/// A marker's value and how long it lasts, or `nil, nil` when `on` has no marker `name`.
fn read_mark(
    lua: &Lua,
    call: &Call,
    f: &Battlefield,
    on: MarkOn,
    name: &str,
) -> mlua::Result<(Value, Value)> {
    let name = MarkerName::new(name).map_err(|e| mlua::Error::runtime(e.to_string()))?;
    match f.mark(on, name) {
        Some(m) => Ok((
            Value::Integer(i64::from(m.value)),
            lasts_value(lua, call, m.lasts)?,
        )),
        None => Ok((Value::Nil, Value::Nil)),
    }
}

/// `ctx:marked(name)` (`hexes` false: the tiles carrying the marker) and `ctx:hex_marked(name)`
/// (`hexes` true: the hexes), as `{ q, r, value = v }` in the board's order of markers.
fn marked(lua: &Lua, f: &Battlefield, name: &str, hexes: bool) -> mlua::Result<Table> {
    let name = MarkerName::new(name).map_err(|e| mlua::Error::runtime(e.to_string()))?;
    let mut b = Build::new(0, 0);
    let mut n = 0;
    for m in f.marks().iter().filter(|m| m.name == name) {
        let c = match m.on {
            MarkOn::Tile(c) if !hexes => c,
            MarkOn::Hex(c) if hexes => c,
            _ => continue,
        };
        let h = f.shape().hex(c);
        n += 1;
        b.open(2, 1)
            .item(1, h.q())
            .item(2, h.r())
            .field(c"value", m.value)
            .close_item(n);
    }
    b.finish(lua)
}

/// The names of the markers on `on`, sorted (an empty list for none, or no such place).
fn mark_names(lua: &Lua, f: &Battlefield, on: Option<MarkOn>) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    if let Some(on) = on {
        for (i, m) in f.marks().iter().filter(|m| m.on == on).enumerate() {
            t.raw_set(
                i + 1,
                m.name.write(&mut [0; hexforge_core::marker::MAX_NAME]),
            )?;
        }
    }
    Ok(t)
}

/// What a script reads of a tile's definition (`ctx:printed`): its values as printed.
fn printed_table(lua: &Lua, def: &Tile) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    t.raw_set("id", def.full_id())?;
    t.raw_set("army", def.army.as_str())?;
    t.raw_set("name", def.name.as_str())?;
    t.raw_set("kind", def.kind.name())?;
    t.raw_set("toughness", def.toughness)?;
    t.raw_set("hit_points", def.hit_points())?;
    t.raw_set("mobile", def.mobile)?;
    t.raw_set("hq", def.is_hq())?;
    let initiative = lua.create_table()?;
    for (i, v) in def.initiative.values().iter().enumerate() {
        initiative.raw_set(i + 1, *v)?;
    }
    t.raw_set("initiative", initiative)?;
    let abilities = lua.create_table()?;
    for (i, a) in def.abilities.iter().enumerate() {
        abilities.raw_set(i + 1, a.hook.as_str())?;
    }
    t.raw_set("abilities", abilities)?;
    if let Some(a) = &def.linked {
        let linked = lua.create_table()?;
        linked.raw_set("kind", a.kind.to_string())?;
        linked.raw_set("loss", a.loss.name())?;
        linked.raw_set("shared", a.shared)?;
        let parts = lua.create_table()?;
        for (i, p) in a.parts.iter().enumerate() {
            let part = lua.create_table()?;
            part.raw_set("tile", format!("{}/{}", def.army, p.tile))?;
            let at = lua.create_table()?;
            for (j, e) in p.steps.iter().enumerate() {
                at.raw_set(j + 1, e.index())?;
            }
            part.raw_set("at", at)?;
            parts.raw_set(i + 1, part)?;
        }
        linked.raw_set("parts", parts)?;
        t.raw_set("linked", linked)?;
    }
    Ok(t)
}

/// What a script reads of a unit's current values (`ctx:standing`).
fn standing_table(lua: &Lua, s: &hexforge_core::Standing) -> mlua::Result<Table> {
    let t = lua.create_table()?;
    let initiative = lua.create_table()?;
    for (i, v) in s.initiative[..usize::from(s.slots)].iter().enumerate() {
        initiative.raw_set(i + 1, *v)?;
    }
    t.raw_set("initiative", initiative)?;
    t.raw_set("melee_bonus", s.melee_bonus)?;
    t.raw_set("ranged_bonus", s.ranged_bonus)?;
    t.raw_set("netted", s.netted)?;
    t.raw_set("hit_points", s.hit_points)?;
    t.raw_set("medics", s.medics)?;
    t.raw_set("mobile", s.mobile)?;
    Ok(t)
}

/// The methods of `ctx` whose answers are fixed by what a remembered `plan_attacks` call is
/// keyed by (`memo.rs`): the ability, its tile, the rules and the declared question's answer.
/// Every other method of `ctx` reads the game and sets `watch`.
const FIXED_READS: &[&str] = &["param", "rule", "option", "ask"];

/// Registers the methods of `ctx` and `plan`; those of `ctx` that read the game set `watch`.
pub(crate) fn register(lua: &Lua, watch: &Watch) -> mlua::Result<()> {
    let watched = Watched {
        watch,
        except: FIXED_READS,
    };
    crate::shared::register::<Call>(lua, Some(watched), |reg| {
        reg.add_method(
            "param",
            |lua, call, (name, default): (String, Value)| match def(call)?
                .abilities
                .get(call.ability)
                .and_then(|a| a.params.get(&name))
            {
                Some(v) => to_lua(lua, v),
                None => Ok(default),
            },
        );
        reg.add_method("rule", |lua, call, key: String| {
            match call.rules.get(&key) {
                Some(v) => to_lua(lua, &v),
                None => Err(mlua::Error::runtime(format!(
                    "unknown rule option `{key}`{}: use a known rule option key, e.g. `net_cycle_rule`",
                    hexforge_core::names::did_you_mean(
                        &key,
                        hexforge_core::Rules::KEYS.iter().copied()
                    )
                ))),
            }
        });
        reg.add_method("option", |lua, call, key: String| {
            let declared = call.catalog.options();
            match call.rules.option(declared, &key) {
                Some(v) => to_lua(lua, &v),
                None => Err(mlua::Error::runtime(format!(
                    "no loaded mod declares the rule option `{key}`{}: declared options are {} (an engine key is read with ctx:rule)",
                    hexforge_core::names::did_you_mean(&key, declared.keys().map(String::as_str)),
                    if declared.is_empty() {
                        "none".to_string()
                    } else {
                        declared.keys().cloned().collect::<Vec<_>>().join(", ")
                    }
                ))),
            }
        });
        reg.add_method("phase", |_, call, ()| Ok(call.phase));
        reg.add_method("game", |lua, call, ()| game_table(lua, call));
        reg.add_method("players", |_, call, ()| Ok(field(call)?.player_count()));
        reg.add_method("team", |_, call, p: i64| {
            let f = field(call)?;
            let seat = player_seat(f, p).ok_or_else(|| no_player(f, p))?;
            Ok(f.team(seat) + 1)
        });
        reg.add_method("hq_hp", |_, call, p: i64| {
            let f = field(call)?;
            let seat = player_seat(f, p).ok_or_else(|| no_player(f, p))?;
            Ok(f.hq_hp(seat))
        });
        reg.add_method("hq", |_, call, p: i64| {
            let f = field(call)?;
            let seat = player_seat(f, p).ok_or_else(|| no_player(f, p))?;
            Ok(match f.hq_cell(seat, &call.catalog) {
                Some(c) => {
                    let h = f.shape().hex(c);
                    (Some(h.q()), Some(h.r()))
                }
                None => (None, None),
            })
        });
        reg.add_method("free", |_, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            Ok(f.shape()
                .cell(hexforge_core::Hex::new(q, r))
                .is_some_and(|c| f.at(c).is_none() && f.link_at(c).is_none()))
        });
        reg.add_method("turn", |_, call, ()| Ok(in_game(call)?.turn));
        reg.add_method("current", |_, call, ()| {
            Ok(in_game(call)?.player.index() + 1)
        });
        reg.add_method("battles", |_, call, ()| Ok(in_game(call)?.battles));
        reg.add_method("stage", |lua, call, ()| {
            call.word(lua, in_game(call)?.stage)
        });
        reg.add_method("placed", |_, call, ()| Ok(in_game(call)?.placed));
        reg.add_method("discarded", |_, call, ()| Ok(in_game(call)?.discarded));
        reg.add_method("army", |lua, call, p: i64| {
            call.word(lua, &pile(call, p)?.army)
        });
        reg.add_method("deck", |_, call, p: i64| Ok(pile(call, p)?.deck));
        reg.add_method("hand", |lua, call, p: i64| {
            tile_ids(lua, call, &pile(call, p)?.hand)
        });
        reg.add_method("discard", |lua, call, p: i64| {
            tile_ids(lua, call, &pile(call, p)?.discard)
        });
        reg.add_method("reserve", |lua, call, p: i64| {
            tile_ids(lua, call, &pile(call, p)?.reserve)
        });
        reg.add_method("army_tiles", |lua, call, army: String| {
            army_tiles(lua, call, &army)
        });
        reg.add_method("army_index", |_, call, id: mlua::String| {
            army_index(call, &id.to_str()?)
        });
        reg.add_method("tile", |_, call, ()| Ok(def(call)?.full_id()));
        reg.add_method("hex", |_, call, ()| {
            let (f, cell, _) = own(call)?;
            let h = f.shape().hex(cell);
            Ok((h.q(), h.r()))
        });
        reg.add_method("owner", |_, call, ()| Ok(owner(call)?.index() + 1));
        reg.add_method("facing", |_, call, ()| Ok(own(call)?.2.facing.index()));
        reg.add_method("tile_at", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let Some(c) = f.shape().cell(hexforge_core::Hex::new(q, r)) else {
                return Ok(Value::Nil);
            };
            match f.at(c) {
                Some(p) => Ok(Value::Table(tile_table(lua, call, f, c, p)?)),
                None => Ok(Value::Nil),
            }
        });
        reg.add_method("board", |lua, call, ()| {
            let f = field(call)?;
            let hexes = f.shape().hexes();
            let mut b = Build::new(hexes.len(), 0);
            for (i, h) in hexes.iter().enumerate() {
                b.open(2, 0).item(1, h.q()).item(2, h.r()).close_item(i + 1);
            }
            b.finish(lua)
        });
        reg.add_method("link_spots", |lua, call, (hexes, size): (Table, i64)| {
            link_spots(lua, field(call)?, &hexes, size)
        });
        reg.add_method("link", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let Some(l) = f.shape().cell(Hex::new(q, r)).and_then(|c| f.link_at(c)) else {
                return Ok(Value::Nil);
            };
            Ok(Value::Table(link_table(lua, f, l)?))
        });
        reg.add_method("links", |lua, call, ()| {
            let f = field(call)?;
            let mut b = Build::new(f.links().len(), 0);
            for (i, l) in f.links().iter().enumerate() {
                b.open(0, 6);
                link_fields(&mut b, f, l);
                b.close_item(i + 1);
            }
            b.finish(lua)
        });
        reg.add_method("tiles", |lua, call, ()| {
            let f = field(call)?;
            let mut b = Build::new(0, 0);
            for (i, (c, p)) in f.tiles().enumerate() {
                b.open(0, TILE_FIELDS);
                tile_fields(&mut b, call, f, c, p);
                b.close_item(i + 1);
            }
            b.finish(lua)
        });
        reg.add_method("is_enemy", |_, call, (q, r): (i32, i32)| {
            let (f, me) = (field(call)?, owner(call)?);
            Ok(f.shape()
                .cell(Hex::new(q, r))
                .and_then(|c| f.at(c))
                .is_some_and(|p| !f.friends(me, p.owner)))
        });
        reg.add_method("netted", |_, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let Some(c) = f.shape().cell(Hex::new(q, r)) else {
                return Ok(false);
            };
            let ctx = hexforge_core::battle::Context {
                catalog: &call.catalog,
                rules: &call.rules,
            };
            Ok(hexforge_core::battle::netted(f, ctx) & (1u64 << c.index()) != 0)
        });
        reg.add_method("edges", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let Some((cell, p)) = f
                .shape()
                .cell(Hex::new(q, r))
                .and_then(|c| f.at(c).map(|p| (c, p)))
            else {
                return Ok(Value::Nil);
            };
            let def = call.catalog.get(p.tile);
            // Armor and nets as they are now, with the edge markers.
            let nets = f.net_edges(cell, call.catalog.traits(p.tile).nets);
            let list = lua.create_table()?;
            for (i, e) in def.edges.iter().enumerate() {
                let t = lua.create_table()?;
                let edge = hexforge_core::hex::Edge::ALL[i];
                t.raw_set("melee", e.melee)?;
                t.raw_set("ranged", e.ranged)?;
                t.raw_set("armor", f.armored(cell, edge, e.armor))?;
                t.raw_set("net", nets & (1 << i) != 0)?;
                t.raw_set("link", e.link)?;
                t.raw_set("direction", (i + usize::from(p.facing.index())) % 6)?;
                list.raw_set(i, t)?;
            }
            Ok(Value::Table(list))
        });
        reg.add_method("marker", |lua, call, (q, r, name): (i32, i32, String)| {
            let f = field(call)?;
            let Some(c) = f.shape().cell(Hex::new(q, r)) else {
                return Ok((Value::Nil, Value::Nil));
            };
            read_mark(lua, call, f, MarkOn::Tile(c), &name)
        });
        reg.add_method("markers", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let on = f.shape().cell(Hex::new(q, r)).map(MarkOn::Tile);
            mark_names(lua, f, on)
        });
        reg.add_method("marked", |lua, call, name: String| {
            marked(lua, field(call)?, &name, false)
        });
        reg.add_method("hex_marked", |lua, call, name: String| {
            marked(lua, field(call)?, &name, true)
        });
        reg.add_method(
            "hex_marker",
            |lua, call, (q, r, name): (i32, i32, String)| {
                let f = field(call)?;
                let Some(c) = f.shape().cell(Hex::new(q, r)) else {
                    return Ok((Value::Nil, Value::Nil));
                };
                read_mark(lua, call, f, MarkOn::Hex(c), &name)
            },
        );
        reg.add_method("hex_markers", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let on = f.shape().cell(Hex::new(q, r)).map(MarkOn::Hex);
            mark_names(lua, f, on)
        });
        reg.add_method("player_marker", |lua, call, (p, name): (i64, String)| {
            let f = field(call)?;
            match player_seat(f, p) {
                Some(s) => read_mark(lua, call, f, MarkOn::Player(s), &name),
                None => Ok((Value::Nil, Value::Nil)),
            }
        });
        reg.add_method("player_markers", |lua, call, p: i64| {
            let f = field(call)?;
            mark_names(lua, f, player_seat(f, p).map(MarkOn::Player))
        });
        reg.add_method("printed", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            match f.shape().cell(Hex::new(q, r)).and_then(|c| f.at(c)) {
                Some(p) => Ok(Value::Table(printed_table(lua, call.catalog.get(p.tile))?)),
                None => Ok(Value::Nil),
            }
        });
        reg.add_method("standing", |lua, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            let Some(c) = f.shape().cell(Hex::new(q, r)) else {
                return Ok(Value::Nil);
            };
            let ctx = hexforge_core::battle::Context {
                catalog: &call.catalog,
                rules: &call.rules,
            };
            let hooked = call.initiative_changes.get(c.index()).copied().unwrap_or(0);
            match hexforge_core::battle::standing(f, ctx, c, hooked, &call.gifts) {
                Some(s) => Ok(Value::Table(standing_table(lua, &s)?)),
                None => Ok(Value::Nil),
            }
        });
        reg.add_method("on_board", |_, call, (q, r): (i32, i32)| {
            let f = field(call)?;
            Ok(f.shape().cell(hexforge_core::Hex::new(q, r)).is_some())
        });
        reg.add_method("ask", |_, call, question: String| match call.answer {
            Some((q, yes)) if q == question => Ok(yes),
            _ => Err(mlua::Error::runtime(format!(
                "ctx:ask(\"{question}\"): an ability asks only in plan_attacks, and only the question it declares with `asks = \"{question}\"`"
            ))),
        });
    })?;
    crate::shared::register::<Plan>(lua, None, |reg| {
        fn at(plan: &Plan, i: usize) -> mlua::Result<&PlannedAttack> {
            i.checked_sub(1)
                .and_then(|i| plan.0.attacks.get(i))
                .ok_or_else(|| {
                    mlua::Error::runtime(format!(
                        "no attack {i}: the plan has {} (indices start at 1)",
                        plan.0.attacks.len()
                    ))
                })
        }
        fn at_mut(plan: &mut Plan, i: usize) -> mlua::Result<&mut PlannedAttack> {
            let n = plan.0.attacks.len();
            i.checked_sub(1)
                .and_then(|i| plan.0.attacks.get_mut(i))
                .ok_or_else(|| {
                    mlua::Error::runtime(format!(
                        "no attack {i}: the plan has {n} (indices start at 1)"
                    ))
                })
        }
        reg.add_method("count", |_, plan, ()| Ok(plan.0.attacks.len()));
        reg.add_method("kind", |_, plan, i: usize| Ok(plan.kind(at(plan, i)?.kind)));
        reg.add_method("edge", |_, plan, i: usize| Ok(at(plan, i)?.edge.index()));
        reg.add_method("strength", |_, plan, i: usize| Ok(at(plan, i)?.strength));
        reg.add_method("base", |_, plan, i: usize| Ok(at(plan, i)?.base));
        reg.add_method("get", |_, plan, i: usize| {
            let a = at(plan, i)?;
            Ok((plan.kind(a.kind), a.edge.index(), a.strength, a.base))
        });
        reg.add_method_mut("set", |_, plan, (i, k, s): (usize, String, i64)| {
            let (kind, s) = (kind_of(&k)?, strength(s)?);
            let a = at_mut(plan, i)?;
            a.kind = kind;
            a.strength = s;
            Ok(())
        });
        reg.add_method_mut("set_kind", |_, plan, (i, k): (usize, String)| {
            let kind = kind_of(&k)?;
            at_mut(plan, i)?.kind = kind;
            Ok(())
        });
        reg.add_method_mut("set_strength", |_, plan, (i, s): (usize, i64)| {
            let s = strength(s)?;
            at_mut(plan, i)?.strength = s;
            Ok(())
        });
        reg.add_method_mut("target", |_, plan, (i, q, r): (usize, i64, i64)| {
            let h = hex_arg(q, r)?;
            at_mut(plan, i)?.target = Some(h);
            Ok(())
        });
        reg.add_method("targeted", |_, plan, i: usize| {
            Ok(match at(plan, i)?.target {
                Some(h) => (Some(h.q()), Some(h.r())),
                None => (None, None),
            })
        });
        reg.add_method_mut("remove", |_, plan, i: usize| {
            at_mut(plan, i)?;
            plan.0.attacks.remove(i - 1);
            Ok(())
        });
        reg.add_method_mut("clear", |_, plan, ()| {
            plan.0.attacks.clear();
            Ok(())
        });
        reg.add_method_mut("add", |_, plan, (edge, k, s): (i64, String, i64)| {
            let edge = u8::try_from(edge)
                .ok()
                .filter(|e| *e < 6)
                .ok_or_else(|| mlua::Error::runtime(format!("edge {edge}: use 0 to 5")))?;
            let s = strength(s)?;
            plan.0.attacks.push(PlannedAttack {
                edge: Edge::ALL[edge as usize],
                kind: kind_of(&k)?,
                strength: s,
                base: s,
                target: None,
            });
            Ok(())
        });
        reg.add_method_mut("explode", |_, plan, t: Option<Table>| {
            let get = |key: &str, default: i64| -> mlua::Result<i64> {
                Ok(match &t {
                    Some(t) => t.get::<Option<i64>>(key)?.unwrap_or(default),
                    None => default,
                })
            };
            let radius = get("radius", 1)?;
            let wounds = get("wounds", 1)?;
            if !(1..=3).contains(&radius) {
                return Err(mlua::Error::runtime(format!(
                    "explode: radius {radius}: use 1 to 3"
                )));
            }
            let hits_hqs = match &t {
                Some(t) => t.get::<Option<bool>>("hits_hqs")?.unwrap_or(false),
                None => false,
            };
            plan.0.attacks.clear();
            plan.0.blast = Some(Blast {
                radius: radius as u8,
                wounds: strength(wounds)?,
                hits_hqs,
            });
            Ok(())
        });
    })?;
    Ok(())
}

/// The effects a hook asks for (`fx`), each checked when asked against the board the hook sees
/// (a move frees its hex for the effects after it), so a refusal names the script's line.
#[derive(Default)]
pub(crate) struct Fx {
    /// The board's shape during a call; `None` outside a call.
    pub(crate) shape: Option<Arc<BoardShape>>,
    /// How many players the call's game has.
    pub(crate) players: usize,
    /// The hexes taken, after the moves asked so far.
    pub(crate) occupied: u64,
    /// What the hook asked for, in order.
    pub(crate) asked: Vec<Effect>,
    /// The cell of the tile whose hook is called.
    pub(crate) own: Option<Cell>,
    /// The call is made during a battle, so initiative changes may be asked.
    pub(crate) in_battle: bool,
    /// The catalog of a game rule's call, whose pile effects (`fx:place`, `fx:lift`,
    /// `fx:set_aside`) name tiles; `None` in a tile's hook, where they are refused.
    pub(crate) rule_catalog: Option<Arc<Catalog>>,
}

impl Fx {
    /// Makes `fx` ready for a call on `field` (`own`: the hook's tile; none for an instant's
    /// hook).
    pub(crate) fn start(&mut self, field: &Battlefield, own: Option<Cell>, in_battle: bool) {
        self.rule_catalog = None;
        self.own = own;
        self.in_battle = in_battle;
        self.occupied = field.occupied();
        self.players = field.player_count();

        if !self
            .shape
            .as_ref()
            .is_some_and(|s| Arc::ptr_eq(s, field.shared_shape()))
        {
            self.shape = Some(field.shared_shape().clone());
        }
        self.asked.clear();
    }

    /// Makes `fx` ready for a game rule's call on `field`: the pile effects are open.
    pub(crate) fn start_rule(&mut self, field: &Battlefield, catalog: &Arc<Catalog>) {
        self.start(field, None, false);
        self.rule_catalog = Some(catalog.clone());
    }

    /// The catalog of a game rule's call, for a pile effect `what`; an error in a tile's hook.
    fn pile_catalog(&self, what: &str) -> mlua::Result<&Catalog> {
        self.rule_catalog.as_deref().ok_or_else(|| {
            mlua::Error::runtime(format!(
                "fx:{what} is a game rule's effect (docs/RULESETS.md, \"The reserve\"): a tile's hook cannot ask it"
            ))
        })
    }

    /// A tile named `army/tile` in a pile effect `what`.
    fn pile_tile(&self, what: &str, id: &str) -> mlua::Result<TileRef> {
        let catalog = self.pile_catalog(what)?;
        catalog.find(id).ok_or_else(|| {
            mlua::Error::runtime(format!(
                "fx:{what}: no tile `{id}` is loaded{}: name it `army/tile`",
                hexforge_core::names::did_you_mean(
                    id,
                    (0..catalog.len())
                        .filter_map(|i| catalog.tile_ref(i))
                        .map(|t| catalog.get(t).full_id())
                        .collect::<Vec<_>>()
                        .iter()
                        .map(String::as_str)
                )
            ))
        })
    }

    /// The cell of `(q, r)` on the call's board, which must hold a tile to `what`.
    fn tile(&self, what: &str, q: i64, r: i64) -> mlua::Result<Cell> {
        let c = self.cell(what, q, r)?;
        if self.occupied & (1u64 << c.index()) == 0 {
            return Err(mlua::Error::runtime(format!(
                "fx:{what}: no tile on ({q}, {r}) to {what}"
            )));
        }
        Ok(c)
    }

    /// The seat of player `p` (counted from 1) of the call's game.
    fn player(&self, what: &str, p: i64) -> mlua::Result<Seat> {
        let n = self.players;
        usize::try_from(p)
            .ok()
            .filter(|p| (1..=n).contains(p))
            .map(|p| Seat::new((p - 1) as u8))
            .ok_or_else(|| {
                mlua::Error::runtime(format!(
                    "fx:{what}: no player {p}: players are 1 to {n} in this game"
                ))
            })
    }

    /// Asks for a marker `name` on `on`, lasting `lasts` with `value`, all checked.
    fn push_mark(
        &mut self,
        what: &str,
        on: MarkOn,
        name: &str,
        lasts: Option<Value>,
        value: Option<i64>,
    ) -> mlua::Result<()> {
        let mark = Mark {
            on,
            name: marker_name(what, name)?,
            lasts: lasts_arg(what, lasts)?,
            value: mark_value(what, value)?,
        };
        mark.name
            .check(mark.on, mark.value)
            .map_err(|e| mlua::Error::runtime(format!("fx:{what}: {e}")))?;
        self.asked.push(Effect::Mark(mark));
        Ok(())
    }

    /// Asks for an initiative change of the unit on `(q, r)` (only in battles).
    fn initiative(&mut self, what: &str, q: i64, r: i64, change: Change) -> mlua::Result<()> {
        if !self.in_battle {
            return Err(mlua::Error::runtime(format!(
                "fx:{what}: {}",
                hexforge_core::effect::INITIATIVE_OUTSIDE_BATTLES
            )));
        }
        let cell = self.tile(what, q, r)?;
        let change = match change {
            Change::Add(n) => InitiativeChange::Add(
                i8::try_from(n)
                    .ok()
                    .filter(|n| (-9..=9).contains(n))
                    .ok_or_else(|| mlua::Error::runtime(format!("fx:{what}: {n}: add -9 to 9")))?,
            ),
            Change::Set(v) => {
                InitiativeChange::Set(u8::try_from(v).ok().filter(|v| *v <= 9).ok_or_else(
                    || mlua::Error::runtime(format!("fx:{what}: initiative {v}: use 0 to 9")),
                )?)
            }
            Change::Swap(q2, r2) => InitiativeChange::Swap(self.tile(what, q2, r2)?),
        };
        self.asked.push(Effect::Initiative { cell, change });
        Ok(())
    }

    /// The edge change `fx:edge{...}` asks for, as a marker of edges, every field checked.
    fn edge(&self, lua: &Lua, t: &Table) -> mlua::Result<Mark> {
        use mlua::FromLua;
        let bad = |m: String| mlua::Error::runtime(format!("fx:edge: {m}"));
        let [hex, one, many, add, remove, lasts] = table_fields(
            lua,
            t,
            "edge",
            ["hex", "edge", "edges", "add", "remove", "lasts"],
        )?;
        let hex = Option::<Table>::from_lua(hex, lua)?;
        let cell = match hex {
            Some(h) => {
                let (q, r): (Option<i64>, Option<i64>) = (h.get(1)?, h.get(2)?);
                let (Some(q), Some(r)) = (q, r) else {
                    return Err(bad("hex is a hex {q, r}".into()));
                };
                self.tile("edge", q, r)?
            }
            None => self
                .own
                .ok_or_else(|| bad("called outside a hook".into()))?,
        };
        let one = Option::<i64>::from_lua(one, lua)?;
        let many = Option::<Vec<i64>>::from_lua(many, lua)?;
        let list = match (one, many) {
            (Some(e), None) => vec![e],
            (None, Some(es)) if !es.is_empty() => es,
            (Some(_), Some(_)) => return Err(bad("give edge or edges, not both".into())),
            _ => {
                return Err(bad(
                    "give the edge (0 front to 5, clockwise) or edges = {...}".into(),
                ));
            }
        };
        let mut mask = 0i16;
        for e in list {
            if !(0..=5).contains(&e) {
                return Err(bad(format!(
                    "edge {e}: edges are 0 (front) to 5, clockwise"
                )));
            }
            mask |= 1 << e;
        }
        let add = Option::<String>::from_lua(add, lua)?;
        let remove = Option::<String>::from_lua(remove, lua)?;
        let name = match (add.as_deref(), remove.as_deref()) {
            (Some("armor"), None) => MarkerName::ADD_ARMOR,
            (Some("net"), None) => MarkerName::ADD_NET,
            (None, Some("armor")) => MarkerName::DROP_ARMOR,
            (None, Some("net")) => MarkerName::DROP_NET,
            (Some(_), Some(_)) => return Err(bad("give add or remove, not both".into())),
            (Some(o), None) | (None, Some(o)) => {
                return Err(bad(format!(
                    "\"{o}\": an edge change adds or removes \"armor\" or \"net\""
                )));
            }
            (None, None) => {
                return Err(bad(
                    "give add = \"armor\" | \"net\" or remove = \"armor\" | \"net\"".into(),
                ));
            }
        };
        let lasts = Option::<Value>::from_lua(lasts, lua)?;
        Ok(Mark {
            on: MarkOn::Tile(cell),
            name,
            lasts: lasts_arg("edge", lasts)?,
            value: mask,
        })
    }

    /// The attack `fx:attack{...}` asks for, every field checked.
    fn attack(&self, lua: &Lua, t: &Table) -> mlua::Result<ScriptedAttack> {
        use mlua::FromLua;
        let bad = |m: String| mlua::Error::runtime(format!("fx:attack: {m}"));
        let [kind, strength, from, dir, target, radius] = table_fields(
            lua,
            t,
            "attack",
            ["kind", "strength", "from", "dir", "target", "radius"],
        )?;
        let kind = Option::<String>::from_lua(kind, lua)?;
        let kind = match kind.as_deref() {
            Some("melee") => AttackKind::Melee,
            Some("ranged") => AttackKind::Ranged,
            Some("pierce") => AttackKind::Pierce,
            Some("area") => AttackKind::Explosion,
            Some(other) => {
                return Err(bad(format!(
                    "unknown kind \"{other}\": use \"melee\", \"ranged\", \"pierce\" or \"area\""
                )));
            }
            None => {
                return Err(bad(
                    "kind is missing: use \"melee\", \"ranged\", \"pierce\" or \"area\"".into(),
                ));
            }
        };
        let strength = Option::<i64>::from_lua(strength, lua)?;
        let strength = strength.ok_or_else(|| bad("strength is missing: use 1 to 9".into()))?;
        let strength = u8::try_from(strength)
            .ok()
            .filter(|n| (1..=hexforge_core::effect::MAX_ATTACK_STRENGTH).contains(n))
            .ok_or_else(|| bad(format!("strength {strength}: use 1 to 9")))?;
        let hex = |field: &str, v: Value| -> mlua::Result<Option<Cell>> {
            let Some(v) = Option::<Table>::from_lua(v, lua)? else {
                return Ok(None);
            };
            let (q, r): (Option<i64>, Option<i64>) = (v.get(1)?, v.get(2)?);
            let (Some(q), Some(r)) = (q, r) else {
                return Err(bad(format!("{field} is a hex {{q, r}}")));
            };
            self.cell("attack", q, r).map(Some)
        };
        let from = match hex("from", from)? {
            Some(c) => c,
            None => self.own.ok_or_else(|| {
                bad("this hook's tile is on no hex (an instant): give `from`".into())
            })?,
        };
        let shape = self
            .shape
            .as_ref()
            .ok_or_else(|| bad("called outside a hook".into()))?;
        if self.occupied & (1u64 << from.index()) == 0 {
            return Err(bad(format!(
                "no tile on {} to attack from",
                shape.hex(from)
            )));
        }
        let target = hex("target", target)?;
        let dir = Option::<i64>::from_lua(dir, lua)?;
        let radius = Option::<i64>::from_lua(radius, lua)?;
        let mut a = ScriptedAttack {
            from,
            kind,
            strength,
            dir: Dir::N,
            target,
            radius: 0,
        };
        if kind == AttackKind::Explosion {
            if dir.is_some() {
                return Err(bad(
                    "an area attack has no dir: give its centre as target".into()
                ));
            }
            let r = radius.unwrap_or(1);
            a.radius = u8::try_from(r)
                .ok()
                .filter(|n| (1..=hexforge_core::effect::MAX_ATTACK_RADIUS).contains(n))
                .ok_or_else(|| bad(format!("radius {r}: use 1 to 3")))?;
            return Ok(a);
        }
        if radius.is_some() {
            return Err(bad("only an area attack has a radius".into()));
        }
        match (dir, target) {
            (Some(_), Some(_)) => Err(bad("give dir or target, not both".into())),
            (None, None) => Err(bad("give dir (0 to 5) or target {q, r}".into())),
            (Some(d), None) => {
                a.dir = Dir::from_index(d).ok_or_else(|| bad(format!("dir {d}: use 0 to 5")))?;
                Ok(a)
            }
            (None, Some(to)) => {
                let melee = kind == AttackKind::Melee;
                a.dir =
                    hexforge_core::effect::line_to(shape, from, to, melee).ok_or_else(|| {
                        bad(format!(
                            "the target {} is not {} {}",
                            shape.hex(to),
                            if melee {
                                "next to"
                            } else {
                                "on a straight line from"
                            },
                            shape.hex(from)
                        ))
                    })?;
                Ok(a)
            }
        }
    }

    /// `fx:place{ tile, q, r, facing, owner }` read into an effect: a board tile of the owner's
    /// reserve (the game checks it is there) on an empty hex of the board, facing 0 to 5.
    fn place(&mut self, lua: &Lua, t: &Table) -> mlua::Result<Effect> {
        use mlua::FromLua;
        let bad = |m: String| mlua::Error::runtime(format!("fx:place: {m}"));
        let [tile, q, r, facing, owner, ask_owner] = table_fields(
            lua,
            t,
            "place",
            ["tile", "q", "r", "facing", "owner", "ask_owner"],
        )?;
        let id: String = Option::<String>::from_lua(tile, lua)?
            .ok_or_else(|| bad("`tile` is required, as `army/tile`".to_string()))?;
        let tile = self.pile_tile("place", &id)?;
        let (q, r) = match (
            Option::<i64>::from_lua(q, lua)?,
            Option::<i64>::from_lua(r, lua)?,
        ) {
            (Some(q), Some(r)) => (q, r),
            _ => {
                return Err(bad(
                    "`q` and `r` are required: the hex to place it on".to_string()
                ));
            }
        };
        let cell = self.cell("place", q, r)?;
        if self.occupied & (1u64 << cell.index()) != 0 {
            return Err(bad(format!(
                "({q}, {r}) is taken: a tile goes on an empty hex"
            )));
        }
        let facing = match Option::<i64>::from_lua(facing, lua)? {
            None => Dir::N,
            Some(f) => u8::try_from(f)
                .ok()
                .filter(|f| *f < 6)
                .map(Dir::new)
                .ok_or_else(|| bad(format!("facing {f}: use 0 (north) to 5, clockwise")))?,
        };
        let owner = match Option::<i64>::from_lua(owner, lua)? {
            Some(p) => self.player("place", p)?,
            None => {
                return Err(bad(
                    "`owner` is required: the player whose reserve the tile leaves".to_string(),
                ));
            }
        };
        let ask = match ask_owner {
            Value::Nil | Value::Boolean(false) => false,
            Value::Boolean(true) => true,
            other => {
                return Err(bad(format!(
                    "`ask_owner` is true (the tile's owner picks its facing, `facing` first) or false, not {}",
                    other.type_name()
                )));
            }
        };
        self.occupied |= 1u64 << cell.index();
        Ok(Effect::Place {
            tile,
            owner,
            cell,
            facing,
            ask,
        })
    }

    /// `fx:link{ hexes, kind, owner, loss, shared }` read into an effect: the hexes on the board,
    /// the kind a name, the owner a player, the loss
    /// `whole` (the default) or `segment`, shared `true` for `whole` and `false` for `segment`
    /// unless given. The board checks the rest when the effects are carried out.
    fn link(&self, lua: &Lua, t: &Table) -> mlua::Result<Effect> {
        use mlua::FromLua;
        let bad = |m: String| mlua::Error::runtime(format!("fx:link: {m}"));
        let [hexes, kind, owner, loss, shared] =
            table_fields(lua, t, "link", ["hexes", "kind", "owner", "loss", "shared"])?;
        let hexes: Table = Option::<Table>::from_lua(hexes, lua)?
            .ok_or_else(|| bad("`hexes` is required: a list of { q, r } pairs".to_string()))?;
        let mut segments = 0u64;
        for h in hexes.sequence_values::<Table>() {
            let h = h?;
            let (q, r): (i64, i64) = (h.get(1)?, h.get(2)?);
            let c = self.cell("link", q, r)?;
            segments |= 1u64 << c.index();
        }
        let kind: String = Option::<String>::from_lua(kind, lua)?
            .ok_or_else(|| bad("`kind` is required, a name like `structure`".to_string()))?;
        let kind = marker_name("link", &kind)?;
        let loss = match Option::<String>::from_lua(loss, lua)? {
            None => hexforge_core::LinkLoss::Whole,
            Some(l) => hexforge_core::LinkLoss::parse(&l).ok_or_else(|| {
                bad(format!(
                    "loss `{l}`: use \"whole\" (its tiles leave together) or \"segment\""
                ))
            })?,
        };
        let shared = Option::<bool>::from_lua(shared, lua)?
            .unwrap_or(loss == hexforge_core::LinkLoss::Whole);
        let owner = match Option::<i64>::from_lua(owner, lua)? {
            Some(p) => self.player("link", p)?,
            None => {
                return Err(bad(
                    "`owner` is required: the player number the unit belongs to".to_string(),
                ));
            }
        };
        // What the hexes alone decide is told at the line of the call; the board checks the rest.
        let n = segments.count_ones();
        if !(2..=hexforge_core::link::MAX_SEGMENTS).contains(&n) {
            return Err(bad(hexforge_core::LinkError::Size(n).to_string()));
        }
        if let Some(shape) = &self.shape
            && !hexforge_core::link::connected(shape, segments)
        {
            return Err(bad(hexforge_core::LinkError::Split.to_string()));
        }
        if loss == hexforge_core::LinkLoss::Whole && segments & !self.occupied != 0 {
            return Err(bad(hexforge_core::LinkError::Empty.to_string()));
        }
        Ok(Effect::Link {
            kind,
            owner,
            segments,
            loss,
            shared,
        })
    }

    /// The cell of `(q, r)` on the call's board.
    fn cell(&self, what: &str, q: i64, r: i64) -> mlua::Result<Cell> {
        let shape = self
            .shape
            .as_ref()
            .ok_or_else(|| mlua::Error::runtime(format!("fx:{what}: called outside a hook")))?;
        shape
            .cell(hex_arg(q, r)?)
            .ok_or_else(|| mlua::Error::runtime(format!("fx:{what}: ({q}, {r}) is off the board")))
    }
}

/// The fields `known` of a table given to `fx:WHAT`, read in one pass over it (a field looked
/// up by name costs a protected call into Lua), `nil` for those it lacks; a key not in `known` is
/// refused, the first unknown key in alphabetical order named, so the message never depends on
/// the table's order.
fn table_fields<const N: usize>(
    lua: &Lua,
    t: &Table,
    what: &str,
    known: [&str; N],
) -> mlua::Result<[Value; N]> {
    if let Some(values) = crate::scan::fields(lua, t, known)? {
        return Ok(values);
    }
    let mut unknown = Vec::new();
    for pair in t.clone().pairs::<Value, Value>() {
        let (k, _) = pair?;
        let listed =
            matches!(&k, Value::String(s) if known.iter().any(|w| w.as_bytes() == &*s.as_bytes()));
        if !listed {
            unknown.push(match &k {
                Value::String(s) => s.to_str()?.to_string(),
                other => other.to_string()?,
            });
        }
    }
    unknown.sort();
    Err(mlua::Error::runtime(format!(
        "fx:{what}: unknown key `{}` (keys: {})",
        unknown.first().map_or("?", String::as_str),
        known.join(", ")
    )))
}

/// An initiative change as a script asks it, before its numbers are checked.
enum Change {
    Add(i64),
    Set(i64),
    Swap(i64, i64),
}

/// What `a` reads, shared by the host, which puts an attack in before each `attack_resolved` or
/// `attacked` call and takes it out after it, and the attack object: filling it is no Lua call
/// into a script and no protected call, only the links of a chain of tables (below).
///
/// A field of `a` is read without calling any function: the object's metatable sends reads to
/// the table of its methods, whose metatable sends the reads it misses on along a chain of small
/// tables made once per Lua state, one per value a field can have (`{ outcome = "landed" }`,
/// `{ kind = "melee" }`, `{ edge = 2 }`, `{ strength = 3 }`, `{ wounds = 1 }`). Before a call the
/// host links the tables of that attack's values one behind the other; after it, the methods'
/// table links straight to the function that explains what went wrong (a field `a` has not, or
/// `a` read after its hook). That function also answers what the chain cannot: an edge of none
/// (nil) and strengths or wounds above [`LINKED_MAX`].
pub(crate) struct AttackSlot {
    now: Rc<std::cell::Cell<Option<LuaAttack>>>,
    /// The table of the methods, first in the chain.
    methods: Table,
    /// The chain's tables of each field, in the order they are linked.
    outcome: Vec<Link>,
    kind: Vec<Link>,
    edge: Vec<Link>,
    strength: Vec<Link>,
    wounds: Vec<Link>,
    /// A metatable whose `__index` is the explaining function: the end of every chain.
    missing: Table,
}

/// One table of the chain (`data`: `{ field = value }`), the metatable that sends reads to it
/// (`link`: `{ __index = data }`), and which table of the next field it sends its misses to.
struct Link {
    data: Table,
    link: Table,
    /// Which table of the next field `data`'s metatable links to (`u8::MAX`: none yet).
    behind: std::cell::Cell<u8>,
}

/// The largest strength and number of wounds with a table in the chain; larger ones (which
/// modifiers can make) are read through the explaining function.
const LINKED_MAX: u8 = 15;

/// The fields of `a`, for the message that lists them.
const ATTACK_FIELDS: &str =
    "read a.outcome, a.kind, a.edge, a.strength, a.wounds, a:from() or a:target()";

impl AttackSlot {
    /// Puts in the attack `a` reads during the call (`None` after it).
    pub(crate) fn set(&self, attack: Option<LuaAttack>) -> mlua::Result<()> {
        if attack.is_none() && self.now.get().is_none() {
            return Ok(());
        }
        self.now.set(attack);
        let Some(a) = attack else {
            return self.methods.set_metatable(Some(self.missing.clone()));
        };
        let outcome = OUTCOMES.iter().position(|o| *o == a.outcome);
        let kind = KINDS.iter().position(|k| *k == a.kind);
        let (Some(outcome), Some(kind)) = (outcome, kind) else {
            // Not a value the chain has: every field is read through the explaining function.
            return self.methods.set_metatable(Some(self.missing.clone()));
        };
        let edge = a.edge.map_or(6, usize::from).min(6);
        let number = |n: u8| usize::from(n.min(LINKED_MAX + 1));
        let at = [outcome, kind, edge, number(a.strength), number(a.wounds)];
        let fields = [
            &self.outcome,
            &self.kind,
            &self.edge,
            &self.strength,
            &self.wounds,
        ];
        self.methods
            .set_metatable(Some(fields[0][at[0]].link.clone()))?;
        // A table's link to the next field is set again only when it changed since it was set.
        for i in 0..fields.len() - 1 {
            let (table, next) = (&fields[i][at[i]], at[i + 1]);
            if usize::from(table.behind.get()) != next {
                table
                    .data
                    .set_metatable(Some(fields[i + 1][next].link.clone()))?;
                table.behind.set(next as u8);
            }
        }
        Ok(())
    }
}

/// The outcomes, in the order of the chain's tables.
const OUTCOMES: [hexforge_core::hooks::Outcome; 5] = {
    use hexforge_core::hooks::Outcome;
    [
        Outcome::Landed,
        Outcome::Absorbed,
        Outcome::Armor,
        Outcome::Stopped,
        Outcome::Missed,
    ]
};

/// The attack kinds, in the order of the chain's tables.
const KINDS: [AttackKind; 4] = [
    AttackKind::Melee,
    AttackKind::Ranged,
    AttackKind::Pierce,
    AttackKind::Explosion,
];

/// An attack once it has resolved, as `attack_resolved` and `attacked` read it (`a`): one
/// object per Lua state; its methods read the attack of the [`AttackSlot`].
pub(crate) struct Attack {
    now: Rc<std::cell::Cell<Option<LuaAttack>>>,
}

/// The attack under way; an error outside its hook (a script kept `a` in a variable).
fn current(now: &std::cell::Cell<Option<LuaAttack>>) -> mlua::Result<LuaAttack> {
    now.get()
        .ok_or_else(|| mlua::Error::runtime("the attack is read only during its hook"))
}

/// The attack object's chain of tables, built in Lua: for the outcome names, the kind names, edges
/// 0 to 5 then none, and strengths and wounds 0 to `max` then more, a list `data, link, ...`
/// where `data` holds the field's value (none for the last of edges, strengths and wounds) and
/// `link` is `{ __index = data }`.
const ATTACK_CHAIN: &str = r#"
local outcomes, kinds, max = ...
local function links(field, values, n)
  local out = {}
  for i = 1, n do
    local data = {}
    local v = values[i]
    if v ~= nil then
      data[field] = v
    end
    out[2 * i - 1] = data
    out[2 * i] = { __index = data }
  end
  return out
end
local numbers = {}
for n = 0, max do
  numbers[n + 1] = n
end
return links("outcome", outcomes, #outcomes), links("kind", kinds, #kinds),
  links("edge", { 0, 1, 2, 3, 4, 5 }, 7), links("strength", numbers, max + 2),
  links("wounds", numbers, max + 2)
"#;

/// [`ATTACK_CHAIN`] compiled once per process.
static ATTACK_CHAIN_CODE: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();

/// Creates the attack object `a` of the Lua state `lua`, with the slot the host fills for each
/// call (its chain of tables made here, once).
pub(crate) fn attack_object(lua: &Lua) -> mlua::Result<(mlua::AnyUserData, AttackSlot)> {
    let now = Rc::new(std::cell::Cell::new(None));
    let read = now.clone();
    let explain = lua.create_function(move |lua, (_, key): (bool, Value)| {
        let known = match &key {
            Value::String(s) => match &*s.as_bytes() {
                b"outcome" => Some(0),
                b"kind" => Some(1),
                b"edge" => Some(2),
                b"strength" => Some(3),
                b"wounds" => Some(4),
                _ => None,
            },
            _ => None,
        };
        let Some(field) = known else {
            return Err(mlua::Error::runtime(format!(
                "the attack `a` has no field `{}`: {ATTACK_FIELDS}",
                key.to_string().unwrap_or_default()
            )));
        };
        let a = current(&read)?;
        Ok(match field {
            0 => Value::String(lua.create_string(a.outcome.name())?),
            1 => Value::String(lua.create_string(kind_name(a.kind))?),
            2 => a.edge.map_or(Value::Nil, |e| Value::Integer(e.into())),
            3 => Value::Integer(a.strength.into()),
            _ => Value::Integer(a.wounds.into()),
        })
    })?;
    let missing = lua.create_table()?;
    missing.raw_set("__index", explain)?;
    // The chain's tables are made in one call into Lua (a chunk compiled once per process):
    // made from Rust one at a time, each table and field cost a protected call.
    let chain =
        crate::sandbox::engine_chunk(lua, &ATTACK_CHAIN_CODE, ("=attack", ATTACK_CHAIN), None)?;
    let outcome_names = lua.create_sequence_from(OUTCOMES.iter().map(|o| o.name()))?;
    let kind_names = lua.create_sequence_from(KINDS.iter().map(|k| kind_name(*k)))?;
    let (outcome, kind, edge, strength, wounds): (Table, Table, Table, Table, Table) =
        chain.call((outcome_names, kind_names, LINKED_MAX))?;
    let links = |t: Table| -> mlua::Result<Vec<Link>> {
        (1..=t.raw_len() / 2)
            .map(|i| {
                Ok(Link {
                    data: t.raw_get(2 * i - 1)?,
                    link: t.raw_get(2 * i)?,
                    behind: std::cell::Cell::new(u8::MAX),
                })
            })
            .collect()
    };
    let (outcome, kind, edge) = (links(outcome)?, links(kind)?, links(edge)?);
    let (strength, wounds) = (links(strength)?, links(wounds)?);
    for w in &wounds {
        w.data.set_metatable(Some(missing.clone()))?;
    }
    let methods = lua.create_table()?;
    methods.set_metatable(Some(missing.clone()))?;
    lua.register_userdata_type::<Attack>(|reg| {
        reg.add_meta_field("__index", methods.clone());
        reg.add_method("from", |_, a, ()| {
            let h = current(&a.now)?.from;
            Ok((h.q(), h.r()))
        });
        reg.add_method("target", |_, a, ()| {
            Ok(match current(&a.now)?.target {
                Some(h) => (Some(h.q()), Some(h.r())),
                None => (None, None),
            })
        });
        reg.add_meta_method(
            mlua::MetaMethod::NewIndex,
            |_, _, (key, _): (Value, Value)| -> mlua::Result<()> {
                Err(mlua::Error::runtime(format!(
                    "the attack `a` is read only (setting `{}`)",
                    key.to_string().unwrap_or_default()
                )))
            },
        );
    })?;
    let a = lua.create_any_userdata(Attack { now: now.clone() })?;
    let slot = AttackSlot {
        now,
        methods,
        outcome,
        kind,
        edge,
        strength,
        wounds,
        missing,
    };
    Ok((a, slot))
}

/// [`hexforge_core::hooks::ResolvedAttack`] with its cells as hexes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LuaAttack {
    pub(crate) from: Hex,
    pub(crate) edge: Option<u8>,
    pub(crate) kind: AttackKind,
    pub(crate) target: Option<Hex>,
    pub(crate) strength: u8,
    pub(crate) wounds: u8,
    pub(crate) outcome: hexforge_core::hooks::Outcome,
}

/// A hit on the unit, as `before_wound` sees it (`hits`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LuaHit {
    pub(crate) from: Option<Hex>,
    pub(crate) kind: Option<AttackKind>,
    /// The wounds when the hook was called: it may only lessen them.
    pub(crate) dealt: u8,
    pub(crate) wounds: u8,
    pub(crate) to: Hex,
}

#[derive(Default)]
pub(crate) struct Hits(pub(crate) Vec<LuaHit>);

fn hex_arg(q: i64, r: i64) -> mlua::Result<Hex> {
    let q = i32::try_from(q).map_err(|_| mlua::Error::runtime(format!("q {q} is out of range")))?;
    let r = i32::try_from(r).map_err(|_| mlua::Error::runtime(format!("r {r} is out of range")))?;
    Ok(Hex::new(q, r))
}

/// A marker name from a script, checked.
fn marker_name(what: &str, name: &str) -> mlua::Result<MarkerName> {
    MarkerName::new(name).map_err(|e| mlua::Error::runtime(format!("fx:{what}: {e}")))
}

/// How long a marker lasts, from a script: `"turn"`, `"battle"`, `"permanent"` or 1 to 99 turns.
fn lasts_arg(what: &str, v: Option<Value>) -> mlua::Result<Lasts> {
    let bad = |got: String| {
        mlua::Error::runtime(format!(
            "fx:{what}: a marker lasts \"turn\", \"battle\", \"permanent\" or 1 to 99 turns; got {got}"
        ))
    };
    match v {
        None | Some(Value::Nil) => Ok(Lasts::Permanent),
        Some(Value::String(s)) => match s.to_str()?.as_ref() {
            "turn" => Ok(Lasts::Turn),
            "battle" => Ok(Lasts::Battle),
            "permanent" => Ok(Lasts::Permanent),
            other => Err(bad(format!("\"{other}\""))),
        },
        Some(Value::Integer(n)) => u8::try_from(n)
            .ok()
            .filter(|n| (1..=99).contains(n))
            .map(Lasts::Turns)
            .ok_or_else(|| bad(n.to_string())),
        Some(other) => Err(bad(format!("a {}", other.type_name()))),
    }
}

/// A marker's number from a script: -999 to 999, 0 when none is given.
fn mark_value(what: &str, v: Option<i64>) -> mlua::Result<i16> {
    let v = v.unwrap_or(0);
    i16::try_from(v)
        .ok()
        .filter(|v| (-999..=999).contains(v))
        .ok_or_else(|| {
            mlua::Error::runtime(format!(
                "fx:{what}: a marker's value is -999 to 999; got {v}"
            ))
        })
}

/// What scripts read of how long a marker lasts: `"turn"`, `"battle"`, `"permanent"` or the
/// number of turns left.
fn lasts_value(lua: &Lua, call: &Call, l: Lasts) -> mlua::Result<Value> {
    Ok(match l {
        Lasts::Turn => Value::String(call.word(lua, "turn")?),
        Lasts::Battle => Value::String(call.word(lua, "battle")?),
        Lasts::Permanent => Value::String(call.word(lua, "permanent")?),
        Lasts::Turns(n) => Value::Integer(i64::from(n)),
    })
}

fn count(n: i64) -> mlua::Result<u8> {
    u8::try_from(n)
        .ok()
        .filter(|n| (1..=9).contains(n))
        .ok_or_else(|| mlua::Error::runtime(format!("{n} wounds: use 1 to 9")))
}

/// Registers the methods of `fx` and `hits` (the resolved attack `a` has its own,
/// [`attack_object`]); each sets `watch` when it runs.
pub(crate) fn register_reactions(lua: &Lua, watch: &Watch) -> mlua::Result<()> {
    let watched = || Watched { watch, except: &[] };
    crate::shared::register::<Fx>(lua, Some(watched()), |reg| {
        reg.add_method_mut("wound", |_, fx, (q, r, n): (i64, i64, Option<i64>)| {
            let cell = fx.tile("wound", q, r)?;
            let wounds = count(n.unwrap_or(1))?;
            fx.asked.push(Effect::Wound { cell, wounds });
            Ok(())
        });
        reg.add_method_mut("attack", |lua, fx, t: Table| {
            let a = fx.attack(lua, &t)?;
            fx.asked.push(Effect::Attack(a));
            Ok(())
        });
        reg.add_method_mut("heal", |_, fx, (q, r, n): (i64, i64, Option<i64>)| {
            let cell = fx.tile("heal", q, r)?;
            let wounds = count(n.unwrap_or(1))?;
            fx.asked.push(Effect::Heal { cell, wounds });
            Ok(())
        });
        reg.add_method_mut("move", |_, fx, (q, r, q2, r2): (i64, i64, i64, i64)| {
            let from = fx.tile("move", q, r)?;
            let to = fx.cell("move", q2, r2)?;
            if fx.occupied & (1u64 << to.index()) != 0 {
                return Err(mlua::Error::runtime(format!(
                    "fx:move: cannot move onto ({q2}, {r2}): the hex is taken"
                )));
            }
            fx.occupied = fx.occupied & !(1u64 << from.index()) | 1u64 << to.index();
            fx.asked.push(Effect::Move { from, to });
            Ok(())
        });
        reg.add_method_mut("link", |lua, fx, t: Table| {
            let e = fx.link(lua, &t)?;
            fx.asked.push(e);
            Ok(())
        });
        reg.add_method_mut("place", |lua, fx, t: Table| {
            let e = fx.place(lua, &t)?;
            fx.asked.push(e);
            Ok(())
        });
        reg.add_method_mut("lift", |_, fx, (q, r): (i64, i64)| {
            fx.pile_catalog("lift")?;
            let cell = fx.tile("lift", q, r)?;
            fx.occupied &= !(1u64 << cell.index());
            fx.asked.push(Effect::Lift { cell });
            Ok(())
        });
        reg.add_method_mut("face", |_, fx, (q, r, f): (i64, i64, i64)| {
            fx.pile_catalog("face")?;
            let cell = fx.tile("face", q, r)?;
            let facing = u8::try_from(f)
                .ok()
                .filter(|f| *f < 6)
                .map(Dir::new)
                .ok_or_else(|| {
                    mlua::Error::runtime(format!(
                        "fx:face: facing {f}: use 0 (north) to 5, clockwise"
                    ))
                })?;
            fx.asked.push(Effect::Face { cell, facing });
            Ok(())
        });
        reg.add_method_mut("battle", |_, fx, ()| {
            fx.pile_catalog("battle")?;
            fx.asked.push(Effect::Battle);
            Ok(())
        });
        reg.add_method_mut("discard", |_, fx, (p, id): (i64, String)| {
            let tile = fx.pile_tile("discard", &id)?;
            let player = fx.player("discard", p)?;
            fx.asked.push(Effect::Discard { player, tile });
            Ok(())
        });
        reg.add_method_mut("grant", |_, fx, (p, id): (i64, String)| {
            let tile = fx.pile_tile("grant", &id)?;
            let player = fx.player("grant", p)?;
            fx.asked.push(Effect::Grant { player, tile });
            Ok(())
        });
        reg.add_method_mut("set_aside", |_, fx, (p, id): (i64, String)| {
            let tile = fx.pile_tile("set_aside", &id)?;
            let player = fx.player("set_aside", p)?;
            fx.asked.push(Effect::SetAside { player, tile });
            Ok(())
        });
        reg.add_method_mut("unlink", |_, fx, (q, r): (i64, i64)| {
            let cell = fx.cell("unlink", q, r)?;
            fx.asked.push(Effect::Unlink { cell });
            Ok(())
        });
        reg.add_method_mut(
            "mark",
            |_, fx, (q, r, name, lasts, value): (i64, i64, String, Option<Value>, Option<i64>)| {
                let on = MarkOn::Tile(fx.tile("mark", q, r)?);
                fx.push_mark("mark", on, &name, lasts, value)
            },
        );
        reg.add_method_mut("unmark", |_, fx, (q, r, name): (i64, i64, String)| {
            let on = MarkOn::Tile(fx.tile("unmark", q, r)?);
            let name = marker_name("unmark", &name)?;
            fx.asked.push(Effect::Unmark { on, name });
            Ok(())
        });
        reg.add_method_mut(
            "mark_hex",
            |_, fx, (q, r, name, lasts, value): (i64, i64, String, Option<Value>, Option<i64>)| {
                let on = MarkOn::Hex(fx.cell("mark_hex", q, r)?);
                fx.push_mark("mark_hex", on, &name, lasts, value)
            },
        );
        reg.add_method_mut("unmark_hex", |_, fx, (q, r, name): (i64, i64, String)| {
            let on = MarkOn::Hex(fx.cell("unmark_hex", q, r)?);
            let name = marker_name("unmark_hex", &name)?;
            fx.asked.push(Effect::Unmark { on, name });
            Ok(())
        });
        reg.add_method_mut(
            "mark_player",
            |_, fx, (p, name, lasts, value): (i64, String, Option<Value>, Option<i64>)| {
                let on = MarkOn::Player(fx.player("mark_player", p)?);
                fx.push_mark("mark_player", on, &name, lasts, value)
            },
        );
        reg.add_method_mut("add_initiative", |_, fx, (q, r, n): (i64, i64, i64)| {
            fx.initiative("add_initiative", q, r, Change::Add(n))
        });
        reg.add_method_mut("set_initiative", |_, fx, (q, r, v): (i64, i64, i64)| {
            fx.initiative("set_initiative", q, r, Change::Set(v))
        });
        reg.add_method_mut(
            "swap_initiative",
            |_, fx, (q, r, q2, r2): (i64, i64, i64, i64)| {
                fx.initiative("swap_initiative", q, r, Change::Swap(q2, r2))
            },
        );
        reg.add_method_mut("edge", |lua, fx, t: Table| {
            let mark = fx.edge(lua, &t)?;
            fx.asked.push(Effect::Mark(mark));
            Ok(())
        });
        reg.add_method_mut("unmark_player", |_, fx, (p, name): (i64, String)| {
            let on = MarkOn::Player(fx.player("unmark_player", p)?);
            let name = marker_name("unmark_player", &name)?;
            fx.asked.push(Effect::Unmark { on, name });
            Ok(())
        });
    })?;
    crate::shared::register::<Hits>(lua, Some(watched()), |reg| {
        fn at(h: &Hits, i: usize) -> mlua::Result<&LuaHit> {
            i.checked_sub(1).and_then(|i| h.0.get(i)).ok_or_else(|| {
                mlua::Error::runtime(format!(
                    "no hit {i}: there are {} (indices start at 1)",
                    h.0.len()
                ))
            })
        }
        fn at_mut(h: &mut Hits, i: usize) -> mlua::Result<&mut LuaHit> {
            let n = h.0.len();
            i.checked_sub(1)
                .and_then(|i| h.0.get_mut(i))
                .ok_or_else(|| {
                    mlua::Error::runtime(format!("no hit {i}: there are {n} (indices start at 1)"))
                })
        }
        reg.add_method("count", |_, h, ()| Ok(h.0.len()));
        reg.add_method("wounds", |_, h, i: usize| Ok(at(h, i)?.wounds));
        reg.add_method("kind", |_, h, i: usize| {
            Ok(at(h, i)?.kind.map_or("instant", kind_name))
        });
        reg.add_method("from", |_, h, i: usize| {
            Ok(match at(h, i)?.from {
                Some(x) => (Some(x.q()), Some(x.r())),
                None => (None, None),
            })
        });
        reg.add_method_mut("set_wounds", |_, h, (i, n): (usize, i64)| {
            let hit = at_mut(h, i)?;
            let n = u8::try_from(n)
                .ok()
                .filter(|n| *n <= hit.dealt)
                .ok_or_else(|| {
                    mlua::Error::runtime(format!(
                        "set_wounds: {n} is not between 0 and the {} the hit deals (a hook may only lessen hits)",
                        hit.dealt
                    ))
                })?;
            hit.wounds = n;
            Ok(())
        });
        reg.add_method_mut("reflect", |_, h, i: usize| {
            let hit = at_mut(h, i)?;
            hit.to = hit.from.ok_or_else(|| {
                mlua::Error::runtime("reflect: an instant's hit has no attacker to turn back to")
            })?;
            Ok(())
        });
        reg.add_method_mut("redirect", |_, h, (i, q, r): (usize, i64, i64)| {
            let to = hex_arg(q, r)?;
            at_mut(h, i)?.to = to;
            Ok(())
        });
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::{Limits, new_sandbox};
    use hexforge_core::Rng;
    use hexforge_core::hooks::Outcome;
    use std::cell::RefCell;

    fn attack(outcome: Outcome, kind: AttackKind, edge: Option<u8>, strength: u8) -> LuaAttack {
        LuaAttack {
            from: Hex::new(1, -1),
            edge,
            kind,
            target: None,
            strength,
            wounds: 2,
            outcome,
        }
    }

    #[test]
    fn a_reads_the_attack_of_its_call_and_no_attack_after_it() {
        let rng = Rc::new(RefCell::new(Rng::seeded(0)));
        let sb = new_sandbox(Limits::default(), rng).expect("a sandbox");
        let (a, slot) = attack_object(&sb.lua).expect("the attack object");
        let function = |body: &str| -> mlua::Function {
            sb.lua
                .load(format!("return function(a) {body} end"))
                .eval()
                .expect("compiles")
        };
        let read = function(
            r#"local fq, fr = a:from()
               local tq = a:target()
               return table.concat({ a.outcome, a.kind, tostring(a.edge), a.strength, a.wounds,
                                     fq, fr, tostring(tq) }, " ")"#,
        );
        let fields = |at: LuaAttack| {
            slot.set(Some(at)).expect("filled");
            sb.runner.call::<String>(&sb.lua, &read, &a).expect("reads")
        };
        let melee = attack(Outcome::Landed, AttackKind::Melee, Some(2), 3);
        assert_eq!(fields(melee), "landed melee 2 3 2 1 -1 nil");
        let ranged = attack(Outcome::Landed, AttackKind::Ranged, Some(2), 3);
        assert_eq!(fields(ranged), "landed ranged 2 3 2 1 -1 nil");
        // No edge, and a strength above the chain's tables.
        let strong = attack(Outcome::Missed, AttackKind::Pierce, None, 20);
        assert_eq!(fields(strong), "missed pierce nil 20 2 1 -1 nil");
        let other_edge = attack(Outcome::Landed, AttackKind::Melee, Some(5), 3);
        assert_eq!(fields(other_edge), "landed melee 5 3 2 1 -1 nil");
        assert_eq!(fields(melee), "landed melee 2 3 2 1 -1 nil");

        let failure = |body: &str| {
            sb.runner
                .call::<()>(&sb.lua, &function(body), &a)
                .expect_err("refused")
                .message
        };
        let missing = failure("return a.kept");
        assert!(
            missing.starts_with("the attack `a` has no field `kept`"),
            "{missing}"
        );
        let write = failure("a.outcome = 1");
        assert_eq!(write, "the attack `a` is read only (setting `outcome`)");
        slot.set(None).expect("emptied");
        for body in ["return a.outcome", "return a.wounds", "return a:from()"] {
            assert_eq!(
                failure(body),
                "the attack is read only during its hook",
                "{body}"
            );
        }
        assert!(failure("return a.kept").starts_with("the attack `a` has no field `kept`"));
    }
}

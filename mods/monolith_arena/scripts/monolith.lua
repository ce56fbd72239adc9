-- The Monolith (R10.6) as a game rule (docs/MONOLITH_ARENA.md, "The Monolith").
--
-- A player's Monolith is their banner (HQ) and two lower segments. Folded, it is only the banner
-- on the board; the two lower segments hold hidden tiles, kept in the player's reserve
-- (docs/RULESETS.md, "The reserve"). Deployed, it is a linked unit of kind `monolith` on three
-- hexes with `loss = "segment"` (docs/LINKED_UNITS.md): a segment whose tile is destroyed stays
-- on the board as an empty hex that any tile may enter, which puts that tile inside.
--
-- What a folded Monolith holds lives in markers on its owner (all permanent):
--   mono_hid         how many tiles the player has hidden during setup (0 to 2)
--   mono_s1, mono_s2 lower segment 1 and 2 while folded: 0 empty, else OWNER * 100 + N, the
--                    tile being the N-th of its owner's army (ctx:army_tiles)
--   mono_w1, mono_w2 the wound markers of that tile, mono_p1, mono_p2 its poison markers,
--   mono_f1, mono_f2 its facing (kept for an enemy tile, R10.6.10)
-- and while it deploys or has deployed this turn:
--   mono_half        the first lower segment is down, the second not yet (lasts 2 ends of turns);
--                    the hex marker `mono_half` marks where the first went
--   mono_turn        the Monolith deployed this turn: no tile is placed but into an empty segment
--                    (lasts "turn")
--   mono_up          the Monolith stands deployed (until it folds or comes apart)

local KIND = "monolith"

-- The rule's state markers on a player.
local function pm(ctx, p, name)
  return ctx:player_marker(p, name) or 0
end

-- Player `p`'s deployed Monolith: the linked unit, or nil when it is folded. A deployed
-- Monolith holds its banner: the unit on the banner's hex, if any; once the banner is gone (Q41)
-- its lower segments may still stand linked, and are looked for among every unit.
local function deployed(ctx, p)
  local bq, br = ctx:hq(p)
  if bq then
    local l = ctx:link(bq, br)
    if l and l.kind == KIND and l.owner == p then
      return l
    end
    return nil
  end
  for _, l in ipairs(ctx:links()) do
    if l.kind == KIND and l.owner == p then
      return l
    end
  end
  return nil
end

-- The hex the first lower segment went on: q, r, or nil.
local function half_hex(ctx, p)
  for _, h in ipairs(ctx:hex_marked("mono_half")) do
    if h.value == p then
      return h[1], h[2]
    end
  end
  return nil
end

-- The tile id and owner a lower segment's marker value names, or nil for an empty segment.
local function slot_tile(ctx, value)
  if value <= 0 then
    return nil
  end
  local owner, n = value // 100, value % 100
  local entry = ctx:army_tiles(ctx:army(owner))[n]
  return entry and entry.id, owner
end

-- The marker value naming tile `id` of player `owner`'s army: its place in the army's list
-- (`ctx:army_index`), with no walk through the list.
local function slot_value(ctx, owner, id)
  local n = ctx:army_index(id)
  if not n then
    error("the tile " .. id .. " is not in the army of player " .. owner)
  end
  return owner * 100 + n
end

-- Puts lower segment `k` of player `p`'s folded Monolith on (q, r): its tile, if it holds one,
-- with the wounds and poison it had when it folded. `facing` is the owner's pick; an enemy
-- tile's controller picks its own, offered first the facing it had when the Monolith folded
-- (R10.6.10: `ask_owner`, a decision put to that player).
local function put_down(ctx, fx, p, k, q, r, facing)
  local id, owner = slot_tile(ctx, pm(ctx, p, "mono_s" .. k))
  if not id then
    return
  end
  local enemy = owner ~= p
  if enemy then
    facing = pm(ctx, p, "mono_f" .. k)
  end
  fx:place({ tile = id, q = q, r = r, facing = facing, owner = owner, ask_owner = enemy })
  local w, poison = pm(ctx, p, "mono_w" .. k), pm(ctx, p, "mono_p" .. k)
  if w > 0 then
    fx:wound(q, r, w)
  end
  if poison > 0 then
    fx:mark(q, r, "poison", "permanent", poison)
  end
end

-- Notes `value` in player `p`'s marker `name`; no marker for 0.
local function keep(fx, p, name, value)
  if value ~= 0 then
    fx:mark_player(p, name, "permanent", value)
  end
end

-- Folds player `p`'s deployed Monolith `l` right after a Battle (R10.6.6), unless a tile in a
-- lower segment is netted (R10.6.8). Every tile inside leaves the board for its owner's reserve,
-- with what it carries noted on the Monolith's owner.
local function fold(ctx, fx, p, l)
  local bq, br = ctx:hq(p)
  local lower = {}
  for _, s in ipairs(l.segments) do
    if not (s.q == bq and s.r == br) then
      lower[#lower + 1] = s
    end
  end
  if not bq then
    -- The banner is gone (Q41): the lower segments stand alone from now on.
    fx:unlink(l.segments[1].q, l.segments[1].r)
    fx:unmark_player(p, "mono_up")
    return
  end
  for _, s in ipairs(lower) do
    if not s.empty and ctx:netted(s.q, s.r) then
      return -- R10.6.8: a netted tile cannot move, so the Monolith stays deployed.
    end
    if not s.empty and ctx:tile_at(s.q, s.r).hq then
      return -- A banner never leaves the board (docs/DECISIONS.md): the Monolith stays deployed.
    end
  end
  fx:unlink(bq, br)
  fx:unmark_player(p, "mono_up")
  for k = 1, 2 do
    local s = lower[k]
    local t = s and not s.empty and ctx:tile_at(s.q, s.r)
    if t then
      fx:mark_player(p, "mono_s" .. k, "permanent", slot_value(ctx, t.owner, t.id))
      keep(fx, p, "mono_w" .. k, t.wounds)
      keep(fx, p, "mono_p" .. k, ctx:marker(s.q, s.r, "poison") or 0)
      keep(fx, p, "mono_f" .. k, t.owner ~= p and t.facing or 0)
      fx:lift(s.q, s.r)
    end
  end
end

rule("monolith", {
  when = "monolith",
  doc = "R10.6: each banner is a Monolith with two hidden tiles, deployed after a discard and folded after every Battle.",

  -- Only a deployed Monolith folds, and only a half-deployed one is taken back at a turn's end.
  battle_ended_when = { anyone = { "mono_up" } },
  turn_ended_when = { markers = { "mono_half" } },
  -- What a folded Monolith holds is its player's secret (R10.6.1): the views of anyone else show
  -- these markers without their values (docs/RULESETS.md, "Secrets").
  secret = { "mono_s1", "mono_s2", "mono_w1", "mono_w2", "mono_p1", "mono_p2", "mono_f1", "mono_f2" },

  -- What the Monolith closes, declared (docs/RULESETS.md, "Declared targets and restrictions"):
  -- the engine works it out after every action with no call into this script.
  restrict = {
    -- R10.6.1: before their banner, each player hides two tiles (while they have one to hide).
    { stages = { "hq" }, below = { mono_hid = 2 }, offered = "hide", close = { "hq" } },
    -- Half deployed: nothing else is done until the second lower segment is down.
    { marker = "mono_half", close = { "place", "instant", "move", "discard", "redraw" } },
    -- R10.6.3: the turn it deploys, no tile is placed but a champion or rune into an empty
    -- segment of the Monolith; tiles on the board still move.
    { marker = "mono_turn", place_only = { empty_segments = KIND } },
  },

  battle_ended = function(ctx, fx)
    for p = 1, ctx:players() do
      -- Only a player whose Monolith stands (`mono_up`) has one to fold: the others' linked
      -- units are not read at all.
      local l = ctx:player_marker(p, "mono_up") and deployed(ctx, p)
      if l then
        fold(ctx, fx, p, l)
      end
    end
  end,

  turn_ended = function(ctx, fx)
    -- A turn that ends half deployed takes the first lower segment back: the Monolith stays folded.
    local p = ctx:current()
    if ctx:player_marker(p, "mono_half") then
      local q, r = half_hex(ctx, p)
      if q then
        if ctx:tile_at(q, r) then
          fx:lift(q, r)
        end
        fx:unmark_hex(q, r, "mono_half")
      end
      fx:unmark_player(p, "mono_half")
    end
  end,

  actions = {
    {
      name = "hide",
      doc = "Before placing your banner: hide a champion or rune of your army in your Monolith (R10.6.1); twice.",
      stages = { "hq" },
      below = { mono_hid = 2 },
      -- Which tile is hidden is shown only to its player.
      secret = true,
      -- The champions and runes of which a copy is still in the player's draw pile (R10.6.1).
      targets = { pile = { "soldier", "module" } },
      play = function(ctx, target, fx)
        local p = ctx:current()
        local k = pm(ctx, p, "mono_hid") + 1
        fx:set_aside(p, target.tile)
        fx:mark_player(p, "mono_s" .. k, "permanent", slot_value(ctx, p, target.tile))
        fx:mark_player(p, "mono_hid", "permanent", k)
      end,
    },
    {
      name = "deploy",
      doc = "After drawing and discarding: put the Monolith's first lower segment here, next to the banner or to where the second will go (R10.6.3).",
      facing = true,
      -- Offered in play, after the turn's discard and before any tile is placed, to a player
      -- whose Monolith is folded: in between, the engine does not ask `targets` at all.
      stages = { "play" },
      after_discard = true,
      before_placing = true,
      lacks = { "mono_half", "mono_up" },
      at_least = { mono_hid = 2 },
      cites = "R10.6.3",
      -- The free hexes with a free hex for the second lower segment that leaves the three in one
      -- piece with the banner (R10.6.3, R10.6.4: a single free hex is not enough). A banner that
      -- stands in a segment of another unit cannot carry it off: nothing is listed.
      targets = {
        spots = { from = { "hq" }, size = 3 },
        why = "its two lower segments need two free hexes in one piece with the banner, and there are not (R10.6.4)",
      },
      play = function(ctx, target, fx)
        local p = ctx:current()
        put_down(ctx, fx, p, 1, target.q, target.r, target.facing)
        fx:mark_hex(target.q, target.r, "mono_half", 2, p)
        fx:mark_player(p, "mono_half", 2, 1)
      end,
    },
    {
      name = "deploy_2",
      doc = "Put the Monolith's second lower segment here: the three segments stand in one piece, deployed at the same moment (R10.6.3, R10.6.11).",
      facing = true,
      marker = "mono_half",
      cites = "R10.6.5",
      -- The free hexes that make the banner, the first segment and it one piece (R10.6.5).
      targets = { spots = { from = { "hq", { marked = "mono_half" } }, size = 3 } },
      play = function(ctx, target, fx)
        local p = ctx:current()
        local bq, br = ctx:hq(p)
        local xq, xr = half_hex(ctx, p)
        put_down(ctx, fx, p, 2, target.q, target.r, target.facing)
        fx:link({
          hexes = { { bq, br }, { xq, xr }, { target.q, target.r } },
          kind = KIND,
          owner = p,
          loss = "segment",
          shared = false,
        })
        fx:unmark_hex(xq, xr, "mono_half")
        fx:unmark_player(p, "mono_half")
        fx:mark_player(p, "mono_turn", "turn", 1)
        fx:mark_player(p, "mono_up", "permanent", 1)
        for _, name in ipairs({ "mono_s1", "mono_s2", "mono_w1", "mono_w2", "mono_p1", "mono_p2", "mono_f1", "mono_f2" }) do
          fx:unmark_player(p, name)
        end
      end,
    },
  },
})

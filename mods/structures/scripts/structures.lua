-- Structures (R9.3) as a game rule (docs/VARIANTS.md, "Structures").
--
-- The eight Structures below (two per base army, their tiles in ../patches/) are EXAMPLES of the
-- project's own: the sources give no Structure tiles. Each is two tiles that make one linked unit
-- (docs/LINKED_UNITS.md): `whole` (either tile destroyed removes both, R9.3.2) and shared (a net or
-- a module reaching either tile reaches both, R9.3.2); the engine refuses every move or push that
-- would part them (R9.3.3).
--
-- The state lives in markers:
--   drawn       on the player whose turn it is, once they have drawn (lasts "turn")
--   building    on the player placing a Structure: which one (1 or 2) (lasts 2 ends of turns)
--   half_built  on the Structure's first tile until its second is down (lasts 2 ends of turns)
--   rotated     on both tiles of a Structure turned this turn (lasts "turn")
--   built_1/2   on a player whose Structure 1 or 2 is on the board (permanent): the other sides
--               left in the reserve never make it again
--
-- Icons (R9.3.4): weight, rotation and boarding below; Sniper is the ability `structure_sniper`
-- (at the end of this file), bound to both tiles of the Watchtower in ../patches/outpost.toml.

local structures = {
  hegemony = {
    { name = "Barricade", tiles = { "hegemony/barricade_gate", "hegemony/barricade_tower" }, weight = true },
    { name = "War Rig", tiles = { "hegemony/war_rig_cab", "hegemony/war_rig_bed" }, rotation = true },
  },
  moloch = {
    { name = "Bunker", tiles = { "moloch/bunker_core", "moloch/bunker_wall" }, weight = true },
    { name = "Walker", tiles = { "moloch/walker_legs", "moloch/walker_gun" }, rotation = true },
  },
  outpost = {
    { name = "Watchtower", tiles = { "outpost/watchtower_base", "outpost/watchtower_top" }, sniper = true },
    { name = "Field Battery", tiles = { "outpost/battery_gun", "outpost/battery_crew" }, weight = true },
  },
  borgo = {
    { name = "Scrap Ram", tiles = { "borgo/ram_head", "borgo/ram_frame" }, boarding = true },
    { name = "Pit Fort", tiles = { "borgo/pit_fort_gate", "borgo/pit_fort_den" }, weight = true },
  },
}

-- Each tile's other side (R9.3.1): the tile of the same id with `_b` (../patches/).
for _, list in pairs(structures) do
  for _, st in ipairs(list) do
    st.sides = { st.tiles[1] .. "_b", st.tiles[2] .. "_b" }
  end
end

-- The Structure of player `p`'s army numbered `n` (1 or 2), or nil.
local function structure(ctx, p, n)
  local list = structures[ctx:army(p)]
  return list and list[n]
end

-- Which Structure a tile id belongs to, with its number: nil when none.
local function structure_of(ctx, p, id)
  for n = 1, 2 do
    local s = structure(ctx, p, n)
    if s and (s.tiles[1] == id or s.tiles[2] == id or s.sides[1] == id or s.sides[2] == id) then
      return s, n
    end
  end
  return nil
end

-- How many times `id` is in the list `ids`.
local function count(ids, id)
  local n = 0
  for _, x in ipairs(ids) do
    if x == id then
      n = n + 1
    end
  end
  return n
end

-- The empty hexes next to (q, r), clockwise from north.
local function empty_neighbours(ctx, q, r)
  local list = {}
  for d = 0, 5 do
    local nq, nr = hex.neighbour(q, r, d)
    if ctx:on_board(nq, nr) and not ctx:tile_at(nq, nr) then
      list[#list + 1] = { nq, nr }
    end
  end
  return list
end

-- The first tile of the Structure player `p` is placing: q, r, or nil.
local function half_built(ctx, p)
  for _, t in ipairs(ctx:tiles()) do
    if t.owner == p and ctx:marker(t.q, t.r, "half_built") then
      return t.q, t.r
    end
  end
  return nil
end

-- Puts the second tile of Structure `s` (number `n`), the side `second`, on (q, r) facing `facing`,
-- next to its first tile on (aq, ar), and makes the two one linked unit with the Structure's icons. `action`: put down by
-- the player's action (Boarding then starts a Battle), not by the end of the turn.
local function finish(ctx, fx, p, s, n, second, aq, ar, q, r, facing, action)
  fx:place({ tile = second, q = q, r = r, facing = facing, owner = p })
  -- Built: the other sides left in the reserve never make it again.
  fx:mark_player(p, "built_" .. n, "permanent", 1)
  fx:link({ hexes = { { aq, ar }, { q, r } }, kind = "structure", owner = p, loss = "whole", shared = true })
  if s.weight then
    -- Weight (R9.3.4): nobody moves the unit to another hex in any way.
    for _, h in ipairs({ { aq, ar }, { q, r } }) do
      fx:mark(h[1], h[2], "cannot_move", "permanent")
      fx:mark(h[1], h[2], "unpushable", "permanent")
    end
  end
  fx:unmark(aq, ar, "half_built")
  fx:unmark_player(p, "building")
  if s.boarding and action then
    -- Boarding (R9.3.4): a Battle starts at once, and it ends the turn.
    fx:battle()
  end
end

-- Why player `p` may not start placing Structure `n` now (R9.3.1), or nil when they may: after
-- drawing, with three tiles to discard, both its tiles in reserve, no Structure half placed, and
-- nobody has drawn their last tile.
local function why_not_build(ctx, p, n, first)
  local s = structure(ctx, p, n)
  if not s then
    return "your army has no Structure " .. n .. " (R9.3.1)"
  end
  if ctx:player_marker(p, "built_" .. n) then
    return "the " .. s.name .. " is on the board already (R9.3.1)"
  end
  if ctx:player_marker(p, "building") then
    return "put down the second tile of the Structure you are placing first (R9.3.1)"
  end
  if not ctx:player_marker(p, "drawn") then
    return "a Structure is placed after drawing (R9.3.1)"
  end
  if ctx:game().last_tile_drawn then
    return "no Structure is placed once a player has drawn their last tile (R9.3.1)"
  end
  if #ctx:hand(p) < 3 then
    return "a Structure costs three tiles discarded from your hand, and you hold " .. #ctx:hand(p) .. " (R9.3.1)"
  end
  local reserve = ctx:reserve(p)
  local second = count(reserve, s.tiles[2]) + count(reserve, s.sides[2])
  if (count(reserve, s.tiles[1]) == 0 and count(reserve, s.sides[1]) == 0) or second == 0 then
    return "the " .. s.name .. " is not in your reserve any more (R9.3.1)"
  end
  local tile = first == 1 and s.tiles[1] or s.sides[1]
  if count(reserve, tile) == 0 then
    return "that side of the " .. s.name .. "'s first tile is not in your reserve (R9.3.1)"
  end
  return nil
end

-- The action that places the first tile of Structure `n`.
local function build(n, side)
  return {
    name = "build_" .. n .. (side == 2 and "_b" or ""),
    doc = "After drawing, discard three tiles and put your army's Structure " .. n
      .. " down: its first tile here, " .. (side == 2 and "its other side" or "this side")
      .. " up, the second next to it (R9.3.1).",
    facing = true,
    targets = function(ctx)
      local why = why_not_build(ctx, ctx:current(), n, side)
      if why then
        return why
      end
      local list = {}
      for _, t in ipairs(ctx:board()) do
        if not ctx:tile_at(t[1], t[2]) and #empty_neighbours(ctx, t[1], t[2]) > 0 then
          list[#list + 1] = t
        end
      end
      return list
    end,
    play = function(ctx, target, fx)
      local p = ctx:current()
      local s = structure(ctx, p, n)
      -- The three tiles held longest go (the hand is in the order the tiles came).
      local hand = ctx:hand(p)
      for i = 1, 3 do
        fx:discard(p, hand[i])
      end
      local first = side == 2 and s.sides[1] or s.tiles[1]
      fx:place({ tile = first, q = target.q, r = target.r, facing = target.facing, owner = p })
      fx:mark(target.q, target.r, "half_built", 2, n)
      fx:mark_player(p, "building", 2, n)
    end,
  }
end

-- The Structure the player whose turn it is is placing: the player, its number, the Structure,
-- the tile of its second half with `side` up (1 this side, 2 the other), and where its first
-- tile stands; only the player when none is half placed.
local function placing(ctx, side)
  local p = ctx:current()
  local n = ctx:player_marker(p, "building")
  local aq, ar = half_built(ctx, p)
  if not n or not aq then
    return p
  end
  local st = structure(ctx, p, n)
  return p, n, st, side == 2 and st.sides[2] or st.tiles[2], aq, ar
end

-- The action that puts down the second tile of the Structure being placed, this side up
-- (`side` 1) or its other side (2).
local function finish_action(side)
  return {
    name = side == 2 and "finish_b" or "finish",
    doc = "Put the second tile of the Structure you are placing next to its first, "
      .. (side == 2 and "its other side" or "this side") .. " up (R9.3.1).",
    facing = true,
    targets = function(ctx)
      local p, n, st, tile, aq, ar = placing(ctx, side)
      if not n then
        return {}
      end
      if count(ctx:reserve(p), tile) == 0 then
        return "that side of the " .. st.name .. "'s second tile is not in your reserve (R9.3.1)"
      end
      return empty_neighbours(ctx, aq, ar)
    end,
    play = function(ctx, target, fx)
      local p, n, st, tile, aq, ar = placing(ctx, side)
      finish(ctx, fx, p, st, n, tile, aq, ar, target.q, target.r, target.facing, true)
    end,
  }
end

rule("structures", {
  when = "structures",
  doc = "Structures (R9.3): two inseparable tiles, placed for three discards after drawing.",

  -- R9.3.1: before the game each player receives their army's two Structures.
  setup = function(ctx, fx)
    for p = 1, ctx:players() do
      for n = 1, 2 do
        local s = structure(ctx, p, n)
        if s then
          fx:grant(p, s.tiles[1])
          fx:grant(p, s.tiles[2])
          -- Each tile's other side (R9.3.1), left in the reserve when the first side is used.
          fx:grant(p, s.sides[1])
          fx:grant(p, s.sides[2])
        end
      end
    end
  end,

  drawn = function(ctx, fx)
    fx:mark_player(ctx:current(), "drawn", "turn")
  end,

  -- While a Structure is half placed, its second tile is the only thing to do.
  restrict = function(ctx)
    if ctx:player_marker(ctx:current(), "building") then
      return { close = { "place", "instant", "move", "discard", "redraw" } }
    end
  end,

  -- A turn ended with a Structure half placed: its second tile goes on the first free hex next to
  -- the first, clockwise from north, facing the same way.
  turn_ended = function(ctx, fx)
    for p = 1, ctx:players() do
      local n = ctx:player_marker(p, "building")
      local aq, ar = half_built(ctx, p)
      if n and aq then
        local free = empty_neighbours(ctx, aq, ar)
        if #free > 0 then
          local a = ctx:tile_at(aq, ar)
          local st = structure(ctx, p, n)
          local second = count(ctx:reserve(p), st.tiles[2]) > 0 and st.tiles[2] or st.sides[2]
          finish(ctx, fx, p, st, n, second, aq, ar, free[1][1], free[1][2], a.facing)
        end
      end
    end
  end,

  actions = {
    build(1, 1),
    build(1, 2),
    build(2, 1),
    build(2, 2),
    finish_action(1),
    finish_action(2),
    {
      name = "rotate",
      doc = "Rotation (R9.3.4): once per turn, one tile of a Structure with this icon turns freely.",
      facing = true,
      targets = function(ctx)
        local p = ctx:current()
        if not ctx:player_marker(p, "drawn") then
          return {}
        end
        local list = {}
        for _, t in ipairs(ctx:tiles()) do
          local s = t.owner == p and t.link and structure_of(ctx, p, t.id)
          if s and s.rotation and not ctx:marker(t.q, t.r, "rotated") then
            list[#list + 1] = { t.q, t.r }
          end
        end
        return list
      end,
      play = function(ctx, target, fx)
        fx:face(target.q, target.r, target.facing)
        for _, seg in ipairs(ctx:link(target.q, target.r).segments) do
          if not seg.empty then
            fx:mark(seg.q, seg.r, "rotated", "turn")
          end
        end
      end,
    },
  },
})

-- Sniper (R9.3.4): each ranged attack of the unit hits the enemy unit of its choice on its line
-- of fire, not necessarily the first; armor still protects the unit it hits. The engine chooses
-- for the owner (docs/DECISIONS.md, "Linked units and Structures"): an enemy unit, not an HQ, that
-- the attack destroys if it lands (its wounds and the attack's strength reach its hit points),
-- the one with the highest printed initiative, the nearest on a tie; when there is none, the
-- first enemy on the line, as without the icon.
ability("structure_sniper", {
  doc = "Sniper (R9.3.4): each ranged attack hits the enemy of the unit's choice on its line of fire.",
  plan_attacks = function(ctx, plan)
    local q, r = ctx:hex()
    local facing = ctx:facing()
    for i = 1, plan:count() do
      local kind, edge, strength = plan:get(i)
      if kind == "ranged" then
        local d = hex.edge_direction(edge, facing)
        local best, best_initiative
        local nq, nr = hex.neighbour(q, r, d)
        while ctx:on_board(nq, nr) do
          local t = ctx:tile_at(nq, nr)
          if t and not t.hq and ctx:is_enemy(nq, nr) then
            local p = ctx:printed(nq, nr)
            if t.wounds + strength >= p.hit_points then
              local initiative = p.initiative[1] or -1
              if not best or initiative > best_initiative then
                best, best_initiative = { nq, nr }, initiative
              end
            end
          end
          nq, nr = hex.neighbour(nq, nr, d)
        end
        if best then
          plan:target(i, best[1], best[2])
        end
      end
    end
  end,
})

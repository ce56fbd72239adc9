-- The Scrappers' abilities. Each is an `ability(name, { point = function ... })`; the engine
-- calls only the points defined, for the tiles that bind the ability (docs/LUA_API.md).

-- The hexes of the line leaving (q, r) in direction d, nearest first, to the edge of the board:
-- `for cq, cr in line(ctx, q, r, d) do ... end`.
local function line(ctx, q, r, d)
  local cq, cr = q, r
  return function()
    cq, cr = hex.neighbour(cq, cr, d)
    if ctx:on_board(cq, cr) then
      return cq, cr
    end
  end
end

-- Whether (aq, ar) lies on the straight line leaving (q, r) in direction d (a hex of the board,
-- so no walk along the line is needed).
local function on_ray(q, r, d, aq, ar)
  local v, n = hex.directions[d], hex.distance(q, r, aq, ar)
  return n > 0 and aq == q + v[1] * n and ar == r + v[2] * n
end

-- poison: at the start of each of its owner's turns, every adjacent enemy unit that is not an HQ
-- takes `wounds` (default 1). Not an attack: armor and Medics do not stop it.
ability("poison", {
  turn_started = function(ctx, fx)
    local q, r = ctx:hex()
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      local t = ctx:tile_at(nq, nr)
      if t and not t.hq and ctx:is_enemy(nq, nr) then
        fx:wound(nq, nr, ctx:param("wounds", 1))
      end
    end
  end,
})

-- harpoon: when placed, pulls the first tile on the line leaving its front edge one hex toward
-- it, if that tile is an enemy unit (not an HQ) at least two hexes away; a friendly tile in
-- between blocks the line.
ability("harpoon", {
  placed = function(ctx, fx)
    local q, r = ctx:hex()
    local d = hex.edge_direction(0, ctx:facing())
    for cq, cr in line(ctx, q, r, d) do
      local t = ctx:tile_at(cq, cr)
      if t then
        -- A tile of a linked unit is not pulled: one tile alone would part its unit.
        if hex.distance(q, r, cq, cr) >= 2 and not t.hq and not t.link and ctx:is_enemy(cq, cr) then
          fx:move(cq, cr, hex.neighbour(cq, cr, (d + 3) % 6))
        end
        return
      end
    end
  end,
})

-- weld: when placed, the tile is welded to the first friendly unit next to it (not an HQ, not
-- already part of a linked unit), looking clockwise from its front edge. The two make one linked
-- unit (docs/LINKED_UNITS.md): a net or a module that reaches either reaches both, destroying
-- either destroys both, and no move or push may part them.
ability("weld", {
  placed = function(ctx, fx)
    local q, r = ctx:hex()
    if ctx:link(q, r) then
      return
    end
    for e = 0, 5 do
      local nq, nr = hex.neighbour(q, r, hex.edge_direction(e, ctx:facing()))
      local t = ctx:tile_at(nq, nr)
      if t and t.owner == ctx:owner() and not t.hq and not t.link then
        fx:link{
          hexes = { { q, r }, { nq, nr } },
          kind = "welded",
          owner = ctx:owner(),
          loss = "whole",
          shared = true,
        }
        return
      end
    end
  end,
})

-- mirror_shield: ranged and piercing shots fired from the line in front of the unit (its edge 0)
-- are turned back at the shooter, with the wounds they would have dealt.
ability("mirror_shield", {
  before_wound = function(ctx, hits)
    local q, r = ctx:hex()
    local front = hex.edge_direction(0, ctx:facing())
    for i = 1, hits:count() do
      local kind = hits:kind(i)
      local aq, ar = hits:from(i)
      if (kind == "ranged" or kind == "pierce") and aq and on_ray(q, r, front, aq, ar) then
        hits:reflect(i)
      end
    end
  end,
})

-- Heals `wounds` (default 1) of every wounded friendly unit next to the tile.
local function heal_neighbours(ctx, fx)
  local q, r = ctx:hex()
  for d = 0, 5 do
    local nq, nr = hex.neighbour(q, r, d)
    local t = ctx:tile_at(nq, nr)
    if t and t.wounds > 0 and not ctx:is_enemy(nq, nr) then
      fx:heal(nq, nr, ctx:param("wounds", 1))
    end
  end
end

-- field_repair: after each battle, every adjacent friendly unit loses a wound.
ability("field_repair", { battle_ended = heal_neighbours })

-- mending: at the start of each of its owner's turns, every adjacent friendly unit loses a wound.
ability("mending", { turn_started = heal_neighbours })

-- frenzy: for each adjacent enemy tile the unit gains 1 initiative in the battle, up to `max`
-- (default 2).
ability("frenzy", {
  initiative = function(ctx)
    local q, r = ctx:hex()
    local n = 0
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      if ctx:is_enemy(nq, nr) then
        n = n + 1
      end
    end
    return math.min(n, ctx:param("max", 2))
  end,
})

-- last_blast: when the unit is destroyed in a battle, every adjacent enemy tile takes `wounds`
-- (default 1) at the end of the phase it is destroyed in, after that phase's removals, so an
-- enemy it destroys takes no part in the later phases (HQs lose HP; an enemy that has left the
-- board by then is spared).
ability("last_blast", {
  destroyed = function(ctx, fx)
    local q, r = ctx:hex()
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      if ctx:is_enemy(nq, nr) then
        fx:wound(nq, nr, ctx:param("wounds", 1))
      end
    end
  end,
})

-- pick_off: each ranged shot hits the enemy unit on its line that already has the most wounds
-- (the nearest of them if tied), passing over the others; HQs are passed over. With no wounded
-- enemy on the line the shot goes as usual.
ability("pick_off", {
  plan_attacks = function(ctx, plan)
    local q, r = ctx:hex()
    for i = 1, plan:count() do
      local kind, edge = plan:get(i)
      if kind == "ranged" then
        local best, bq, br = 0, nil, nil
        for cq, cr in line(ctx, q, r, hex.edge_direction(edge, ctx:facing())) do
          local t = ctx:tile_at(cq, cr)
          if t and not t.hq and t.wounds > best and ctx:is_enemy(cq, cr) then
            best, bq, br = t.wounds, cq, cr
          end
        end
        if bq then
          plan:target(i, bq, br)
        end
      end
    end
  end,
})

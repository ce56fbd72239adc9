-- The Scrappers' abilities. Each is an `ability(name, { point = function ... })`; the engine
-- calls only the points defined, for the tiles that bind the ability (docs/LUA_API.md).

-- Whether (aq, ar) lies on the straight line leaving (q, r) in direction d.
local function on_ray(ctx, q, r, d, aq, ar)
  local cq, cr = hex.neighbour(q, r, d)
  while ctx:on_board(cq, cr) do
    if cq == aq and cr == ar then
      return true
    end
    cq, cr = hex.neighbour(cq, cr, d)
  end
  return false
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
    local pq, pr = q, r
    local cq, cr = hex.neighbour(q, r, d)
    local steps = 1
    while ctx:on_board(cq, cr) do
      local t = ctx:tile_at(cq, cr)
      if t then
        if steps >= 2 and not t.hq and ctx:is_enemy(cq, cr) then
          fx:move(cq, cr, pq, pr)
        end
        return
      end
      pq, pr = cq, cr
      cq, cr = hex.neighbour(cq, cr, d)
      steps = steps + 1
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
      if (kind == "ranged" or kind == "pierce") and aq and on_ray(ctx, q, r, front, aq, ar) then
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
-- (default 1) once the battle is over (HQs lose HP).
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
    local facing = ctx:facing()
    for i = 1, plan:count() do
      local kind, edge = plan:get(i)
      if kind == "ranged" then
        local d = hex.edge_direction(edge, facing)
        local best, bq, br = 0, nil, nil
        local cq, cr = hex.neighbour(q, r, d)
        while ctx:on_board(cq, cr) do
          local t = ctx:tile_at(cq, cr)
          if t and not t.hq and ctx:is_enemy(cq, cr) and t.wounds > best then
            best, bq, br = t.wounds, cq, cr
          end
          cq, cr = hex.neighbour(cq, cr, d)
        end
        if bq then
          plan:target(i, bq, br)
        end
      end
    end
  end,
})

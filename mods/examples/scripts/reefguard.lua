-- The Reefguard's abilities (docs/LUA_API.md): what a module gives each linked unit of its own
-- (`gives_to`), initiative changed for a battle (`fx:add_initiative`, `fx:set_initiative`,
-- `fx:swap_initiative`, the `initiative` marker) and edges that gain armor or lose their nets for
-- a while (`fx:edge`).

-- The highest of a tile's current initiative values (modules and auras included), 0 for none.
local function highest(ctx, q, r)
  local top = 0
  local s = ctx:standing(q, r)
  for _, v in ipairs(s and s.initiative or {}) do
    top = math.max(top, v)
  end
  return top
end

-- The units (not HQs) next to the tile, as `q, r` for a generic for loop: its enemies when
-- `enemies` is true, else its friends and allies.
local function adjacent_units(ctx, enemies)
  local q, r = ctx:hex()
  local d = -1
  return function()
    while d < 5 do
      d = d + 1
      local nq, nr = hex.neighbour(q, r, d)
      local t = ctx:tile_at(nq, nr)
      if t and not t.hq and ctx:is_enemy(nq, nr) == enemies then
        return nq, nr
      end
    end
  end
end

-- The enemy unit (not an HQ) on the hex in front of the tile, if there is one.
local function enemy_in_front(ctx)
  local q, r = ctx:hex()
  local nq, nr = hex.neighbour(q, r, hex.edge_direction(0, ctx:facing()))
  local t = ctx:tile_at(nq, nr)
  if t and not t.hq and ctx:is_enemy(nq, nr) then
    return nq, nr
  end
end

-- beacon: each linked friendly unit gains +1 on the attacks it has more of: ranged for a unit
-- with more ranged edges than melee ones, melee for the others.
ability("beacon", {
  gives_to = function(ctx, q, r)
    local melee, ranged = 0, 0
    local edges = ctx:edges(q, r)
    for e = 0, 5 do
      if edges[e].melee > 0 then melee = melee + 1 end
      if edges[e].ranged > 0 then ranged = ranged + 1 end
    end
    if ranged > melee then
      return { ranged = ctx:param("bonus", 1) }
    end
    return { melee = ctx:param("bonus", 1) }
  end,
})

-- reef_heart: the HQ's aura steadies the wounded: +1 initiative to adjacent friendly units that
-- carry a wound, nothing to the others.
ability("reef_heart", {
  gives_to = function(ctx, q, r)
    local t = ctx:tile_at(q, r)
    if t.wounds > 0 then
      return { initiative = 1 }
    end
  end,
})

-- turn_tide: as a battle starts, the unit trades its highest initiative with the enemy unit in
-- front of it, for this battle.
ability("turn_tide", {
  battle_started = function(ctx, fx)
    local nq, nr = enemy_in_front(ctx)
    if nq then
      local q, r = ctx:hex()
      fx:swap_initiative(q, r, nq, nr)
    end
  end,
})

-- chill: as a battle starts, every adjacent enemy unit acts 1 phase later in this battle.
ability("chill", {
  battle_started = function(ctx, fx)
    for nq, nr in adjacent_units(ctx, true) do
      fx:add_initiative(nq, nr, -ctx:param("slow", 1))
    end
  end,
})

-- war_horn: as a battle starts, every adjacent friendly unit that is slower than the Horn acts
-- at the Horn's highest initiative in this battle (its other values keep their distance).
ability("war_horn", {
  battle_started = function(ctx, fx)
    local mine = highest(ctx, ctx:hex())
    for nq, nr in adjacent_units(ctx, false) do
      if highest(ctx, nq, nr) < mine then
        fx:set_initiative(nq, nr, mine)
      end
    end
  end,
})

-- shell_up: once an attack lands on it, the unit closes its shell: armor on every edge until the
-- end of the battle.
ability("shell_up", {
  attacked = function(ctx, a, fx)
    if a.outcome == "landed" then
      fx:edge{ edges = { 0, 1, 2, 3, 4, 5 }, add = "armor", lasts = "battle" }
    end
  end,
})

-- cut_nets: when its attack lands on a tile that nets, it cuts that tile's nets until the end of
-- the turn: whatever they held is free for the next phases and the rest of the turn.
ability("cut_nets", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome ~= "landed" then return end
    local tq, tr = a:target()
    local edges = ctx:edges(tq, tr)
    local nets = {}
    for e = 0, 5 do
      if edges[e].net then nets[#nets + 1] = e end
    end
    if #nets > 0 then
      fx:edge{ hex = { tq, tr }, edges = nets, remove = "net", lasts = "turn" }
    end
  end,
})

-- deep_song: once placed, its adjacent friendly units gain +1 initiative until the end of the
-- next battle (the engine's `initiative` marker).
ability("deep_song", {
  placed = function(ctx, fx)
    for nq, nr in adjacent_units(ctx, false) do
      fx:mark(nq, nr, "initiative", "battle", 1)
    end
  end,
})

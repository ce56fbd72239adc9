-- The Ashen Legion's abilities (armies/ashen_legion.toml): fire-forged knights and war machines
-- that armor each other, hold shield walls, drive the enemy back and slow it with smoke
-- (docs/LUA_API.md).

-- Whether the tile on (q, r) is an enemy unit of the hook's tile: a tile of an enemy player that
-- is not an HQ.
local function enemy_unit(ctx, q, r)
  local t = ctx:tile_at(q, r)
  return t ~= nil and not t.hq and ctx:is_enemy(q, r)
end

-- Whether the unit on (q, r) may be driven onto (q2, r2): that hex is on the board, empty and no
-- segment of a linked unit (docs/LINKED_UNITS.md), and the unit is neither part of a linked unit
-- (which no push may split) nor marked `unpushable`.
local function can_drive(ctx, q, r, q2, r2)
  if not ctx:on_board(q2, r2) or ctx:tile_at(q2, r2) or ctx:link(q2, r2) then
    return false
  end
  return ctx:tile_at(q, r).link == nil and ctx:marker(q, r, "unpushable") == nil
end

-- forge_ward (the Emberforge Banner): as a battle starts, every adjacent friendly unit (not an
-- HQ, allies included) gains armor until the end of that battle on its edge that points straight
-- away from the banner.
ability("forge_ward", {
  battle_started = function(ctx, fx)
    local q, r = ctx:hex()
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      local t = ctx:tile_at(nq, nr)
      if t and not t.hq and not ctx:is_enemy(nq, nr) then
        fx:edge{ hex = { nq, nr }, edge = (d - t.facing) % 6, add = "armor", lasts = "battle" }
      end
    end
  end,
})

-- braced_shields (the Ashen Shieldbearer): while a friendly tile (the banner too) stands on the
-- hex behind it (its edge 3), each melee hit on it deals one wound less.
ability("braced_shields", {
  before_wound = function(ctx, hits)
    local q, r = ctx:hex()
    local bq, br = hex.neighbour(q, r, hex.edge_direction(3, ctx:facing()))
    if not ctx:tile_at(bq, br) or ctx:is_enemy(bq, br) then
      return
    end
    for i = 1, hits:count() do
      local w = hits:wounds(i)
      if hits:kind(i) == "melee" and w > 0 then
        hits:set_wounds(i, w - 1)
      end
    end
  end,
})

-- burning_charge (the Flame Lancer): once placed, if an enemy unit (not an HQ) stands on the hex
-- in front of it, the Lancer drives it one hex straight back and follows into the hex it left.
-- When the enemy cannot be driven (the hex behind it is taken or off the board, it is part of a
-- linked unit, or it is `unpushable`), it takes `wounds` (default 1) instead and nothing moves.
ability("burning_charge", {
  placed = function(ctx, fx)
    local q, r = ctx:hex()
    local d = hex.edge_direction(0, ctx:facing())
    local tq, tr = hex.neighbour(q, r, d)
    if not enemy_unit(ctx, tq, tr) then
      return
    end
    local bq, br = hex.neighbour(tq, tr, d)
    if can_drive(ctx, tq, tr, bq, br) then
      fx:move(tq, tr, bq, br)
      if ctx:tile_at(q, r).link == nil then
        fx:move(q, r, tq, tr)
      end
    else
      fx:wound(tq, tr, ctx:param("wounds", 1))
    end
  end,
})

-- ram_through (the Siege Ram): when its melee attack wounds an enemy unit (not an HQ), that unit
-- is driven one hex straight back, away from the Ram, at the end of the phase, if that hex is on
-- the board and free then. A unit the attack destroys simply leaves the board.
ability("ram_through", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome ~= "landed" or a.kind ~= "melee" then
      return
    end
    local tq, tr = a:target()
    if not tq or not enemy_unit(ctx, tq, tr) then
      return
    end
    local bq, br = hex.neighbour(tq, tr, hex.edge_direction(a.edge, ctx:facing()))
    if can_drive(ctx, tq, tr, bq, br) then
      fx:move(tq, tr, bq, br)
    end
  end,
})

-- firepot (the Ember Mangonel): when its shot lands, every other enemy unit (not an HQ) next to
-- the target takes `wounds` (default 1) at the end of the phase. Not an attack: armor and Medics
-- do not stop it.
ability("firepot", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome ~= "landed" then
      return
    end
    local tq, tr = a:target()
    if not tq then
      return
    end
    for d = 0, 5 do
      local nq, nr = hex.neighbour(tq, tr, d)
      if enemy_unit(ctx, nq, nr) then
        fx:wound(nq, nr, ctx:param("wounds", 1))
      end
    end
  end,
})

-- kindled_fury (the Cinder Zealot): +1 to each of its initiative values in a battle for each wound
-- it carries as the battle starts, at most `max` (default 2).
ability("kindled_fury", {
  initiative = function(ctx)
    local q, r = ctx:hex()
    return math.min(ctx:tile_at(q, r).wounds, ctx:param("max", 2))
  end,
})

-- choking_smoke (the Smoke Alchemist): as a battle starts, the first tile on the line leaving its
-- front edge, if it is an enemy unit (not an HQ), acts `slow` phases later (default 1) in that
-- battle. A friendly tile in between blocks the smoke.
ability("choking_smoke", {
  battle_started = function(ctx, fx)
    local q, r = ctx:hex()
    local tq, tr = hex.first_on_line(ctx, q, r, hex.edge_direction(0, ctx:facing()))
    if tq and enemy_unit(ctx, tq, tr) then
      fx:add_initiative(tq, tr, -ctx:param("slow", 1))
    end
  end,
})

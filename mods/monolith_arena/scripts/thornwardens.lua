-- The Thornwardens' abilities (armies/thornwardens.toml): forest keepers who poison their
-- enemies and mend their own (docs/LUA_API.md).
--
-- Poison is the mod's own marker `poison` on a unit: its value is how many poison markers the unit
-- carries (1 to 9) and it lasts until an ability takes it off or the unit leaves the board. The
-- mod's poison rule (option `poison`) wounds a poisoned unit at the end of each of its owner's
-- turns, unless a regeneration rune (a Medic) is connected to it; these abilities only put the
-- markers on and take them off. HQs are never poisoned.
--
-- Two abilities that poison the same unit in the same phase each read the count as it stood
-- before the phase, so together they add one marker, not two.

-- The most poison markers a unit may carry.
local MAX_POISON = 9

-- Whether the tile on (q, r) is an enemy unit of the hook's tile that poison may reach: a tile
-- of an enemy player that is not an HQ.
local function poisonable(ctx, q, r)
  local t = ctx:tile_at(q, r)
  return t ~= nil and not t.hq and ctx:is_enemy(q, r)
end

-- Puts one more poison marker on the unit on (q, r), at most MAX_POISON.
local function add_poison(ctx, fx, q, r)
  local n = ctx:marker(q, r, "poison") or 0
  fx:mark(q, r, "poison", "permanent", math.min(n + 1, MAX_POISON))
end

-- Takes one poison marker off the unit on (q, r), and the marker itself once none is left.
local function ease_poison(ctx, fx, q, r)
  local n = ctx:marker(q, r, "poison")
  if n == nil then
    return
  end
  if n <= 1 then
    fx:unmark(q, r, "poison")
  else
    fx:mark(q, r, "poison", "permanent", n - 1)
  end
end

-- The friendly units (not HQs, allies included) next to the hook's tile, as a list of {q, r}
-- in the order of the directions (N clockwise).
local function friends_around(ctx)
  local q, r = ctx:hex()
  local found = {}
  for d = 0, 5 do
    local nq, nr = hex.neighbour(q, r, d)
    local t = ctx:tile_at(nq, nr)
    if t and not t.hq and not ctx:is_enemy(nq, nr) then
      found[#found + 1] = { nq, nr }
    end
  end
  return found
end

-- heartwood_sap (the Heartwood Banner): at the end of each of its owner's turns, every adjacent
-- friendly unit (not an HQ) that carries a wound loses `wounds` of them (default 1).
ability("heartwood_sap", {
  turn_ended = function(ctx, fx)
    for _, h in ipairs(friends_around(ctx)) do
      if ctx:tile_at(h[1], h[2]).wounds > 0 then
        fx:heal(h[1], h[2], ctx:param("wounds", 1))
      end
    end
  end,
})

-- venom_arrow (the Venom Archer): each of its attacks that lands (wounds reached the target) on
-- an enemy unit that is not an HQ puts one more poison marker on that unit, at the end of the
-- phase. A shot stopped by armor or spent on a Medic poisons nothing; a unit the shot destroys
-- leaves the board with no marker.
ability("venom_arrow", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome ~= "landed" then
      return
    end
    local tq, tr = a:target()
    if tq and poisonable(ctx, tq, tr) then
      add_poison(ctx, fx, tq, tr)
    end
  end,
})

-- briar_hide (the Briar Knight): an enemy unit (not an HQ) whose melee attack reaches the knight
-- gets one more poison marker at the end of the phase, whether the attack wounds the knight or a
-- Medic takes it. Ranged attacks never touch the briars.
ability("briar_hide", {
  attacked = function(ctx, a, fx)
    if a.kind ~= "melee" then
      return
    end
    if a.outcome ~= "landed" and a.outcome ~= "absorbed" then
      return
    end
    local aq, ar = a:from()
    if poisonable(ctx, aq, ar) then
      add_poison(ctx, fx, aq, ar)
    end
  end,
})

-- strangling_vines (the Strangler Vine): at the start of each of its owner's turns, every enemy
-- unit (not an HQ) on the hex one of its net edges points at, and netted now, gets one more
-- poison marker. A netted Vine's nets hold nothing (R6.1), so it poisons nothing.
ability("strangling_vines", {
  turn_started = function(ctx, fx)
    local q, r = ctx:hex()
    if ctx:netted(q, r) then
      return
    end
    local edges = ctx:edges(q, r)
    for e = 0, 5 do
      if edges[e].net then
        local nq, nr = hex.neighbour(q, r, edges[e].direction)
        if poisonable(ctx, nq, nr) and ctx:netted(nq, nr) then
          add_poison(ctx, fx, nq, nr)
        end
      end
    end
  end,
})

-- mossback_regrowth (the Mossback): after each battle it is still on the board for, it loses
-- `wounds` of its wounds (default 1) and one poison marker.
ability("mossback_regrowth", {
  battle_ended = function(ctx, fx)
    local q, r = ctx:hex()
    if ctx:tile_at(q, r).wounds > 0 then
      fx:heal(q, r, ctx:param("wounds", 1))
    end
    ease_poison(ctx, fx, q, r)
  end,
})

-- grove_blessing (the Grove Druid): once placed, every adjacent friendly unit (not an HQ) loses
-- one wound and one poison marker.
ability("grove_blessing", {
  placed = function(ctx, fx)
    for _, h in ipairs(friends_around(ctx)) do
      if ctx:tile_at(h[1], h[2]).wounds > 0 then
        fx:heal(h[1], h[2], 1)
      end
      ease_poison(ctx, fx, h[1], h[2])
    end
  end,
})

-- The Tidecallers' scripted instants (docs/LUA_API.md, "Scripted instants"): `targets` lists
-- where the instant may be played, `play` says what it does, at once. The instant is in its
-- player's hand, not on the board: `ctx:owner()` is the player playing it, `ctx:hex()` is an error.

-- The enemy units (never HQs) of the player holding the instant, in reading order.
local function enemy_units(ctx)
  local found = {}
  for _, t in ipairs(ctx:tiles()) do
    if not t.hq and ctx:is_enemy(t.q, t.r) then
      found[#found + 1] = t
    end
  end
  return found
end

-- snare: an enemy unit cannot move until the end of the next battle (R3.13, R5.2).
ability("snare", {
  targets = function(ctx)
    local list = {}
    for _, t in ipairs(enemy_units(ctx)) do
      list[#list + 1] = { t.q, t.r }
    end
    return list
  end,
  play = function(ctx, target, fx)
    fx:mark(target.q, target.r, "cannot_move", "battle")
  end,
})

-- tidal_wave: a hex with an enemy unit on or next to it; every enemy unit there and around it
-- takes `wounds` (default 1), every wounded friendly unit there loses a wound, and the hex is
-- `flooded` for 2 turns.
ability("tidal_wave", {
  targets = function(ctx)
    local list = {}
    for _, t in ipairs(enemy_units(ctx)) do
      list[#list + 1] = { t.q, t.r }
      for d = 0, 5 do
        local q, r = hex.neighbour(t.q, t.r, d)
        if ctx:on_board(q, r) then
          list[#list + 1] = { q, r }
        end
      end
    end
    return list
  end,
  play = function(ctx, target, fx)
    local around = { { target.q, target.r } }
    for d = 0, 5 do
      around[#around + 1] = { hex.neighbour(target.q, target.r, d) }
    end
    for _, h in ipairs(around) do
      local t = ctx:tile_at(h[1], h[2])
      if t and not t.hq then
        if ctx:is_enemy(h[1], h[2]) then
          fx:wound(h[1], h[2], ctx:param("wounds", 1))
        elseif t.wounds > 0 then
          fx:heal(h[1], h[2], 1)
        end
      end
    end
    fx:mark_hex(target.q, target.r, "flooded", 2)
  end,
})

-- Poison against the regeneration rune (R10.3) as a game rule (docs/MONOLITH_ARENA.md, "Poison").
--
-- A unit is poisoned by the tile marker `poison`, whose value is how many poison markers it
-- carries (1 to 9); abilities put it (the Thornwardens' venom, for one). At the end of each of its
-- owner's turns a poisoned unit takes one wound per marker. A regeneration rune is a Medic
-- (R10.2): while one of its owner's Medics is connected to the unit, the rune ignores all of the
-- turn's poison wounds (`regeneration_vs_poison = all`, Monolith Arena) or one of them (`one`,
-- as a Neuroshima Hex doctor). The markers stay on the unit until it leaves the board. HQs are
-- never poisoned.

rule("poison", {
  when = "poison",
  doc = "R10.3: each poison marker wounds its unit at the end of its owner's turn, unless a connected regeneration rune (a Medic) ignores it.",

  -- Asked only while some unit carries poison.
  turn_ended_when = { marked = { "poison" } },

  turn_ended = function(ctx, fx)
    local p = ctx:current()
    local poisoned = ctx:marked("poison")
    local all = ctx:option("regeneration_vs_poison") == "all"
    for _, h in ipairs(poisoned) do
      local t = ctx:tile_at(h[1], h[2])
      local n = h.value
      if t.owner == p and not t.hq and n > 0 then
        local wounds = n
        if ctx:standing(t.q, t.r).medics > 0 then
          wounds = all and 0 or n - 1
        end
        if wounds > 0 then
          fx:wound(t.q, t.r, math.min(wounds, 9))
        end
      end
    end
  end,
})

-- Instant abilities: an `instant` function returns which of the engine's instant effects the tile
-- plays, with its parameters. The engine lists the legal targets, checks the one a player picks
-- against the rules of section 5 and carries the effect out (armor never stops an instant; a
-- Medic absorbs its wounds, R4.8.2).
--
-- Effects: "battle"; "move" (one own unit one hex and/or a turn, `move_tile_target`); "push" (a
-- friendly unit pushes an adjacent enemy away, its owner picks where); "wound" (`wounds` on one
-- enemy unit anywhere, never an HQ); "destroy_near_hq" (one enemy unit next to your HQ, never an
-- HQ; `grenade_blocked_if_hq_netted`); "area" (`wounds` on every unit within `radius` of a hex
-- whose whole area is on the board, friends too, never HQs).

-- call_battle: a battle starts at once (R5.1); never once a last tile has been drawn (R2.8.2).
ability("call_battle", {
  instant = function(params)
    return { effect = "battle" }
  end,
})

-- move_unit: move a unit one hex and/or turn it (R5.2).
ability("move_unit", {
  instant = function(params)
    return { effect = "move" }
  end,
})

-- push_back: a friendly unit pushes an adjacent enemy unit one hex away (R5.3).
ability("push_back", {
  instant = function(params)
    return { effect = "push" }
  end,
})

-- snipe: `wounds` (default 1) on any one enemy unit, never an HQ (R5.5).
ability("snipe", {
  instant = function(params)
    return { effect = "wound", wounds = params.wounds or 1 }
  end,
})

-- blast_near_hq: destroys one enemy unit adjacent to the player's HQ, never an HQ (R5.4).
ability("blast_near_hq", {
  instant = function(params)
    return { effect = "destroy_near_hq" }
  end,
})

-- area_strike: `wounds` (default 1) on every unit within `radius` (default 1) of a hex, never
-- HQs (R5.6).
ability("area_strike", {
  instant = function(params)
    return { effect = "area", wounds = params.wounds or 1, radius = params.radius or 1 }
  end,
})

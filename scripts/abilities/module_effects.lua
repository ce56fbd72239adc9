-- Abilities that a module gives to the units its links point at, or an HQ to the adjacent
-- friendly units (its aura). The engine carries them through links with its own rules: a netted
-- module gives nothing, effects stack, a taken-over module works for the other side (R3.14).

-- extra_attack: connected units make `slots` (default 1) more rounds of attacks, one phase apart
-- just below their last normal phase (Mother Module R7.2.5, Outpost HQ R7.1.1, R4.5.2).
ability("extra_attack", {
  gives = function(params)
    return { extra_attack = params.slots or 1 }
  end,
})

-- take_over: a connected enemy module works for this tile's owner instead (Scoper R7.1.3; which
-- tiles can be taken over follows `hijack_scope`).
ability("take_over", {
  gives = function(params)
    return { hijack = true }
  end,
})

-- convert_attack: a connected unit may turn one attack from melee to ranged or back
-- (Quartermaster R7.4.3; how often follows `convert_attack_limit`).
ability("convert_attack", {
  gives = function(params)
    return { convert_attack = true }
  end,
})

-- carry: connected units may move as if they had Mobility (Transport R7.4.4; whether several
-- Transports add up follows `transport_stacks`).
ability("carry", {
  gives = function(params)
    return { mobility = true }
  end,
})

-- move_range: while the tile is on the board, every friendly unit may move up to `hexes`
-- (default 2) whenever it moves (Recon Center R7.1.4). Needs no links.
ability("move_range", {
  gives = function(params)
    return { move_range = params.hexes or 2 }
  end,
})

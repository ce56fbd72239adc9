-- The Tidecallers' abilities: each uses `fx` at a moment of a battle, or the attack events
-- (`attack_resolved`, `attacked`), of docs/LUA_API.md. Every effect happens at the moment the
-- engine documents for its hook: the start's before phase one, a phase's at the end of that phase.

-- leech: each time one of its attacks lands, it loses that many wounds (up to `max`, default 2).
ability("leech", {
  attack_resolved = function(ctx, a, fx)
    local q, r = ctx:hex()
    if a.outcome == "landed" and ctx:tile_at(q, r).wounds > 0 then
      fx:heal(q, r, math.min(a.wounds, ctx:param("max", 2)))
    end
  end,
})

-- thorns: a melee attack that wounds it costs the attacker a wound too, at the end of the phase.
ability("thorns", {
  attacked = function(ctx, a, fx)
    if a.outcome == "landed" and a.kind == "melee" then
      fx:wound(a:from())
    end
  end,
})

-- shatter: when the target's armor stops its shot, the target takes a wound anyway (not an
-- attack: a Medic does not stop it).
ability("shatter", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome == "armor" then
      fx:wound(a:target())
    end
  end,
})

-- backwash: when its attack finds nothing to hit, the unit turns the tide on itself and an
-- adjacent wounded friend loses a wound.
ability("backwash", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome ~= "missed" then
      return
    end
    local q, r = ctx:hex()
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      local t = ctx:tile_at(nq, nr)
      if t and t.wounds > 0 and not ctx:is_enemy(nq, nr) then
        fx:heal(nq, nr, 1)
        return
      end
    end
  end,
})

-- grudge: when a Medic takes an attack meant for it, the attacker takes a wound.
ability("grudge", {
  attacked = function(ctx, a, fx)
    if a.outcome == "absorbed" then
      fx:wound(a:from())
    end
  end,
})

-- ambush: at the start of a battle, before the first phase, the first tile on its front line
-- takes `wounds` (default 1) if it is an enemy unit (never an HQ).
ability("ambush", {
  battle_started = function(ctx, fx)
    local q, r = ctx:hex()
    local tq, tr = hex.first_on_line(ctx, q, r, hex.edge_direction(0, ctx:facing()))
    if tq and not ctx:tile_at(tq, tr).hq and ctx:is_enemy(tq, tr) then
      fx:wound(tq, tr, ctx:param("wounds", 1))
    end
  end,
})

-- undertow: at the end of every phase, the first tile on its front line, if it is an enemy unit
-- (not an HQ) two or more hexes away, is pulled one hex closer. The battle goes on with the
-- tile where it now stands.
ability("undertow", {
  phase_ended = function(ctx, fx)
    local q, r = ctx:hex()
    local d = hex.edge_direction(0, ctx:facing())
    local tq, tr = hex.first_on_line(ctx, q, r, d)
    -- A tile of a linked unit is not pulled: one tile alone would part its unit.
    if tq and hex.distance(q, r, tq, tr) >= 2 and not ctx:tile_at(tq, tr).hq
        and not ctx:tile_at(tq, tr).link and ctx:is_enemy(tq, tr) then
      fx:move(tq, tr, hex.neighbour(tq, tr, (d + 3) % 6))
    end
  end,
})

-- recoil: each phase it fires, the unit takes a wound itself, at the end of that phase.
ability("recoil", {
  plan_attacks = function(ctx, plan, fx)
    if plan:count() > 0 then fx:wound(ctx:hex()) end
  end,
})

-- riptide: +1 initiative in every battle, paid for with a wound before the first phase.
ability("riptide", {
  initiative = function(ctx, fx)
    fx:wound(ctx:hex())
    return 1
  end,
})

-- lifeline: whenever hits reach it, an adjacent wounded friendly soldier (as printed: not a
-- module) loses a wound at the end of the phase (the hits are not changed).
ability("lifeline", {
  before_wound = function(ctx, hits, fx)
    local q, r = ctx:hex()
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      local t = ctx:tile_at(nq, nr)
      if t and t.wounds > 0 and not ctx:is_enemy(nq, nr)
          and ctx:printed(nq, nr).kind == "soldier" then
        fx:heal(nq, nr, 1)
        return
      end
    end
  end,
})

-- The highest of a unit's current initiative values (ctx:standing), 0 if it has none.
local function fastest(ctx, q, r)
  local top = 0
  for _, v in ipairs(ctx:standing(q, r).initiative) do
    top = math.max(top, v)
  end
  return top
end

-- outpace: when the unit is faster now than the first enemy on its front line (their highest
-- current initiative values, modules and auras included), its attacks gain +1.
ability("outpace", {
  plan_attacks = function(ctx, plan, fx)
    local q, r = ctx:hex()
    local tq, tr = hex.first_on_line(ctx, q, r, hex.edge_direction(0, ctx:facing()))
    if tq and ctx:is_enemy(tq, tr) and fastest(ctx, q, r) > fastest(ctx, tq, tr) then
      for i = 1, plan:count() do
        plan:set_strength(i, plan:strength(i) + 1)
      end
    end
  end,
})

-- entangle: an enemy its shot lands on cannot move for 2 turns (the engine's `cannot_move`
-- marker: no Mobility, no Move instant).
ability("entangle", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome == "landed" then
      local tq, tr = a:target()
      fx:mark(tq, tr, "cannot_move", 2)
    end
  end,
})

-- brace: as a battle starts, the unit digs in and cannot be pushed for 2 turns (the engine's
-- `unpushable` marker).
ability("brace", {
  battle_started = function(ctx, fx)
    local q, r = ctx:hex()
    fx:mark(q, r, "unpushable", 2)
  end,
})

-- slippery: nets do not hold it during a battle (the engine's `ignores_nets` marker, from the
-- start of the battle to its end).
ability("slippery", {
  battle_started = function(ctx, fx)
    local q, r = ctx:hex()
    fx:mark(q, r, "ignores_nets", "battle")
  end,
})

-- salt: each time its shot lands, the target is soaked one step more (a marker of the mod's own,
-- `soaked`, whose value counts the steps, up to 9).
ability("salt", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome == "landed" then
      local tq, tr = a:target()
      local now = ctx:marker(tq, tr, "soaked") or 0
      fx:mark(tq, tr, "soaked", "permanent", math.min(now + 1, 9))
    end
  end,
})

-- storm_call: each of its attacks gains the `soaked` value of the first enemy on its line.
ability("storm_call", {
  plan_attacks = function(ctx, plan, fx)
    local q, r = ctx:hex()
    for i = 1, plan:count() do
      local d = hex.edge_direction(plan:edge(i), ctx:facing())
      local tq, tr = hex.first_on_line(ctx, q, r, d)
      if tq and ctx:is_enemy(tq, tr) then
        local soaked = ctx:marker(tq, tr, "soaked")
        if soaked then
          plan:set_strength(i, math.min(9, plan:strength(i) + soaked))
        end
      end
    end
  end,
})

-- volley: at the start of a battle, before the first phase, the unit looses a ranged attack of
-- `strength` (default 1) along its front line: a real attack, so armor facing it and Medics
-- stop it like a printed shot.
ability("volley", {
  battle_started = function(ctx, fx)
    fx:attack{
      kind = "ranged",
      strength = ctx:param("strength", 1),
      dir = hex.edge_direction(0, ctx:facing()),
    }
  end,
})

-- quake: at the end of a battle the ground shakes: an area attack of 1 on every unit next to it,
-- friends and foes alike (not HQs), through armor; a connected Medic may absorb it.
ability("quake", {
  battle_ended = function(ctx, fx)
    fx:attack{ kind = "area", strength = 1, radius = 1 }
  end,
})

-- explode: in its initiative phase the unit may explode instead of attacking (the Clown, R7.2.4).
-- Every unit within `radius` (default 1) takes `wounds` (default 1), unboosted and through armor;
-- the unit is then discarded and no Medic can save it. HQs are hit only when the rules say so:
-- the base mod's option `clown_explosion_mode = "adjacent_incl_hqs"` (3.0) hits them,
-- `"as_bomb_no_hqs"` (classic) does not. Its owner decides each time it acts (the question `explode`, declared with `asks`).
ability("explode", {
  asks = "explode",
  plan_attacks = function(ctx, plan)
    if ctx:ask("explode") then
      plan:explode({
        radius = ctx:param("radius", 1),
        wounds = ctx:param("wounds", 1),
        hits_hqs = ctx:option("clown_explosion_mode") == "adjacent_incl_hqs",
      })
    end
  end,
})

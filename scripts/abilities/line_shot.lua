-- line_shot: the unit's ranged shots hit every enemy on their line, each taking the shot's
-- printed strength; no bonus ever raises it, and armor stops it only for the armored unit
-- (the Gauss Cannon, R7.2.3).
ability("line_shot", {
  plan_attacks = function(ctx, plan)
    for i = 1, plan:count() do
      if plan:kind(i) == "ranged" then
        plan:set_kind(i, "pierce")
        plan:set_strength(i, plan:base(i))
      end
    end
  end,
})

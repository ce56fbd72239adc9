-- line_shot: the unit's ranged shots hit every enemy on their line, each taking the shot's
-- printed strength; no bonus ever raises it, and armor stops it only for the armored unit
-- (the Gauss Cannon, R7.2.3).
ability("line_shot", {
  plan_attacks = function(ctx, plan)
    for i = 1, plan:count() do
      local kind, _, _, base = plan:get(i)
      if kind == "ranged" then
        plan:set(i, "pierce", base)
      end
    end
  end,
})

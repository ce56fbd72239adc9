-- rat_bite: when the Junk Rat is destroyed, every adjacent enemy takes a wound.
ability("rat_bite", {
  plan_attacks = function(ctx, plan)
    -- destroyed = this comment is not the hook
  end,
  destroyed = function(ctx, fx)
    local q, r = ctx:hex()
    for d = 0, 5 do
      local nq, nr = hex.neighbour(q, r, d)
      if ctx:is_enemy(nq, nr) then fx:wound(nq, nr, 1) end
    end
  end,
})

-- anchor_down: a unit the Anchor's blow lands on is marked for the rest of the battle.
ability("anchor_down", {
  attack_resolved = function(ctx, a, fx)
    if a.outcome == "landed" then
      local tq, tr = a:target()
      fx:mark(tq, tr, "unpushable", "battle")
    end
  end,
})

-- A good neighbour: its script loads although the other mod's does not.
ability("spark", {
  initiative = function(ctx) return 1 end,
})

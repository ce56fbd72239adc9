ability("spark", {
  initiative = function(ctx) return 1 end,
})

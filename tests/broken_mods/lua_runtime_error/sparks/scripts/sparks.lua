-- `ability` is misspelt: the script fails while it loads.
abilty("spark", {
  initiative = function(ctx) return 1 end,
})

-- The `then` of the `if` is missing.
ability("spark", {
  initiative = function(ctx)
    if ctx:phase() > 0
      return 1
    end
    return 0
  end,
})

ability("inspire", {
  gives_to = function(ctx, q, r)
    return { melee = 1 }
  end,
})

-- The shared team life of two against two (R10.5.2, R10.5.4) as a game rule
-- (docs/MONOLITH_ARENA.md, "Two against two").
--
-- Each player of a team carries the player marker `team_life`: the team's one life, which starts
-- at the banners' starting hit points (`team_hq_hp`). Whenever a banner loses hit points, the
-- team loses as much life, and both banners are brought down to it: they always show the team's
-- life, so a team whose life reaches 0 loses both at once (R10.5.4), and after the Final Battle
-- the team with more life wins. In games that are not two teams of two, the rule does nothing.

-- The two players of each team, by team number; nil unless the game is two teams of two.
local function teams(ctx)
  if ctx:players() ~= 4 then
    return nil
  end
  local by = {}
  for p = 1, 4 do
    local t = ctx:team(p)
    by[t] = by[t] or {}
    by[t][#by[t] + 1] = p
  end
  local n = 0
  for _, members in pairs(by) do
    if #members ~= 2 then
      return nil
    end
    n = n + 1
  end
  return n == 2 and by or nil
end

-- The hex of player `p`'s banner: q, r, or nil.
local function banner(ctx, p)
  for _, t in ipairs(ctx:tiles()) do
    if t.hq and t.owner == p then
      return t.q, t.r
    end
  end
  return nil
end

rule("team_life", {
  when = "team_life",
  doc = "R10.5.2: a team of two shares one life; a wound on either banner costs the team, and both banners show what is left.",

  setup = function(ctx, fx)
    if teams(ctx) then
      for p = 1, 4 do
        fx:mark_player(p, "team_life", "permanent", ctx:rule("team_hq_hp"))
      end
    end
  end,

  hq_damaged = function(ctx, fx, hq)
    local by = teams(ctx)
    if not by then
      return
    end
    local members = by[ctx:team(hq.player)]
    -- A game started from a scenario without the markers starts the team at `team_hq_hp`.
    local life = ctx:player_marker(members[1], "team_life") or ctx:rule("team_hq_hp")
    local lost = 0
    for _, p in ipairs(members) do
      lost = lost + math.max(0, life - ctx:hq_hp(p))
    end
    if lost == 0 then
      return -- the banners already show the team's life
    end
    local left = math.max(0, life - lost)
    for _, p in ipairs(members) do
      fx:mark_player(p, "team_life", "permanent", left)
      local q, r = banner(ctx, p)
      local extra = ctx:hq_hp(p) - left
      while q and extra > 0 do
        fx:wound(q, r, math.min(extra, 9))
        extra = extra - math.min(extra, 9)
      end
    end
  end,
})

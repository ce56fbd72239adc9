-- Scored deathmatch (R8.3) as a game rule (docs/RULESETS.md, "Game scripts").
--
-- Every wound a unit deals to an opposing HQ scores a point for the unit's owner (R8.3.1), kept
-- as the player marker `score`. In a team game the points of a team's players count together
-- (R8.3.3). The side that reaches the target wins (R8.3.2): at once under `first_to_20`, or at
-- the end of the battle under `end_of_battle_cap_share`, where scores stop at the target and
-- sides that reach it together share the victory. After the Final Battle the most points win;
-- equal points are a draw.

local function score(ctx, p)
  return (ctx:player_marker(p, "score")) or 0
end

-- The players of each team, by team number, and whether any team has two players.
local function teams(ctx)
  local by_team, shared = {}, false
  for p = 1, ctx:players() do
    local t = ctx:team(p)
    local list = by_team[t]
    if list then
      list[#list + 1] = p
      shared = true
    else
      by_team[t] = { p }
    end
  end
  return by_team, shared
end

local function target(ctx, shared)
  if shared then
    return ctx:option("scored_team_target")
  end
  return ctx:option("scored_target")
end

rule("scored_deathmatch", {
  when = "scored",
  doc = "R8.3: HQ wounds score for the attacker's side; the target score or the most points win.",

  setup = function(ctx, fx)
    for p = 1, ctx:players() do
      fx:mark_player(p, "score", "permanent", 0)
    end
  end,

  hq_damaged = function(ctx, fx, hq)
    local cap = ctx:option("scored_resolution") == "end_of_battle_cap_share"
    local _, shared = teams(ctx)
    local goal = target(ctx, shared)
    for p, wounds in ipairs(hq.by) do
      -- Only wounds on an opposing HQ score (R8.3.1, R8.3.3: none for hitting an ally).
      if wounds > 0 and ctx:team(p) ~= ctx:team(hq.player) then
        local new = score(ctx, p) + wounds
        if cap and new > goal then
          new = goal
        end
        fx:mark_player(p, "score", "permanent", new)
      end
    end
  end,

  check = function(ctx, ended)
    local by_team, shared = teams(ctx)
    -- Each side's points, sides in the order of their first player.
    local best, leaders, seen = -1, {}, {}
    for p = 1, ctx:players() do
      local t = ctx:team(p)
      if not seen[t] then
        seen[t] = true
        local sum = 0
        for _, member in ipairs(by_team[t]) do
          sum = sum + score(ctx, member)
        end
        if sum > best then
          best, leaders = sum, { t }
        elseif sum == best then
          leaders[#leaders + 1] = t
        end
      end
    end
    local winners = {}
    for _, t in ipairs(leaders) do
      for _, p in ipairs(by_team[t]) do
        winners[#winners + 1] = p
      end
    end
    if best >= target(ctx, shared) then
      return { winners = winners }
    end
    if ended then
      if #leaders > 1 then
        return { draw = true }
      end
      return { winners = winners }
    end
  end,
})

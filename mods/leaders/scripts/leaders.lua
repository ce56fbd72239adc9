-- Leaders (R9.4) as a game rule (docs/VARIANTS.md, "Leaders").
--
-- The four cards below are EXAMPLES of the project's own: the published Leader cards are not
-- reproduced. Each card has a front and a back: its first use plays the front and flips it, its
-- second use plays the back and sends it back to the box (at most 2 uses a game), and it is used at
-- most once in a turn of its player.
--
-- The state lives in player markers, on every player of a side (teammates share one Leader):
--   leader_offer  the cards dealt and not picked yet: a mask, 1 for card 1, 2 for card 2, 4, 8
--   leader        the card picked (1 to 4), until it goes back to the box
--   leader_flip   the card shows its back (used once)
--   leader_used   used in this turn (lasts "turn")

local cards = {
  { id = "warden", name = "Iron Warden" },
  { id = "surgeon", name = "Field Surgeon" },
  { id = "herald", name = "Storm Herald" },
  { id = "scout", name = "Pathfinder" },
}

-- The players of the side of player `me` (their team), in seat order.
local function side(ctx, me)
  local players = ctx:game().players
  local list = {}
  for p, info in ipairs(players) do
    if info.team == players[me].team then
      list[#list + 1] = p
    end
  end
  return list
end

-- The units (not HQs) of the board for which `keep(tile)` holds, as targets.
local function units(ctx, keep)
  local list = {}
  for _, t in ipairs(ctx:tiles()) do
    if not t.hq and keep(t) then
      list[#list + 1] = { t.q, t.r }
    end
  end
  return list
end

-- Whether the current player may use card `n` now: it is their side's Leader, the game's turns
-- have begun, and it has not been used in this turn.
local function usable(ctx, n)
  local g = ctx:game()
  return g.turn >= 1
    and ctx:player_marker(g.player, "leader") == n
    and ctx:player_marker(g.player, "leader_used") == nil
end

-- Which side of card `n` the current player's Leader shows: "front" or "back".
local function face(ctx)
  if ctx:player_marker(ctx:game().player, "leader_flip") then
    return "back"
  end
  return "front"
end

-- The card was used: once per turn; flipped after its first use, back to the box after its second.
local function used(ctx, fx)
  local me = ctx:game().player
  fx:mark_player(me, "leader_used", "turn", 1)
  for _, p in ipairs(side(ctx, me)) do
    if ctx:player_marker(p, "leader_flip") then
      fx:unmark_player(p, "leader")
      fx:unmark_player(p, "leader_flip")
    else
      fx:mark_player(p, "leader_flip", "permanent", 1)
    end
  end
end

local function own(ctx)
  local me = ctx:game().player
  return function(t)
    return t.owner == me
  end
end

local function enemy(ctx)
  local players = ctx:game().players
  local team = players[ctx:game().player].team
  return function(t)
    return t.team ~= team
  end
end

-- What each card does when used: the targets it takes (given the side it shows) and its play.
local abilities = {
  -- Iron Warden. Front: armor on every edge of a unit of yours until the end of the next battle.
  -- Back: armor on its front edge until then.
  warden = {
    targets = function(ctx)
      return units(ctx, own(ctx))
    end,
    play = function(ctx, target, fx, shows)
      local edges = shows == "front" and { 0, 1, 2, 3, 4, 5 } or { 0 }
      fx:edge{ hex = { target.q, target.r }, edges = edges, add = "armor", lasts = "battle" }
    end,
  },
  -- Field Surgeon. Front: up to 2 wound markers off a unit of yours. Back: 1.
  surgeon = {
    targets = function(ctx)
      local mine = own(ctx)
      return units(ctx, function(t)
        return mine(t) and t.wounds > 0
      end)
    end,
    play = function(ctx, target, fx, shows)
      fx:heal(target.q, target.r, shows == "front" and 2 or 1)
    end,
  },
  -- Storm Herald. Front: 1 wound on an enemy unit (not an attack: armor and Medics do not stop
  -- it). Back: the enemy unit has -1 initiative until the end of the next battle.
  herald = {
    targets = function(ctx)
      return units(ctx, enemy(ctx))
    end,
    play = function(ctx, target, fx, shows)
      if shows == "front" then
        fx:wound(target.q, target.r, 1)
      else
        fx:mark(target.q, target.r, "initiative", "battle", -1)
      end
    end,
  },
  -- Pathfinder. Front: a unit of yours has +2 initiative until the end of the next battle.
  -- Back: +1.
  scout = {
    targets = function(ctx)
      return units(ctx, own(ctx))
    end,
    play = function(ctx, target, fx, shows)
      fx:mark(target.q, target.r, "initiative", "battle", shows == "front" and 2 or 1)
    end,
  },
}

local actions = {}

-- Picking: before their HQ is placed, a side picks one of the three cards dealt to it.
for n, card in ipairs(cards) do
  local bit = 1 << (n - 1)
  actions[#actions + 1] = {
    name = "pick_" .. card.id,
    doc = "Before placing your HQ: lead with the " .. card.name .. " (example card), one of the three dealt to you.",
    targets = function(ctx)
      local offer = ctx:player_marker(ctx:game().player, "leader_offer")
      if offer and offer & bit ~= 0 then
        return { "none" }
      end
      return {}
    end,
    play = function(ctx, target, fx)
      for _, p in ipairs(side(ctx, ctx:game().player)) do
        fx:unmark_player(p, "leader_offer")
        fx:mark_player(p, "leader", "permanent", n)
      end
    end,
  }
end

-- Using: the card's ability, at most once in a turn of its player.
for n, card in ipairs(cards) do
  local ability = abilities[card.id]
  actions[#actions + 1] = {
    name = card.id,
    doc = "Your Leader, the " .. card.name .. " (example card): its front on the first use, its back on the second.",
    targets = function(ctx)
      if not usable(ctx, n) then
        return {}
      end
      return ability.targets(ctx, face(ctx))
    end,
    play = function(ctx, target, fx)
      ability.play(ctx, target, fx, face(ctx))
      used(ctx, fx)
    end,
  }
end

rule("leaders", {
  when = "leaders",
  doc = "R9.4: each side picks one of three Leader cards dealt before the HQs; each is used at most once a turn, twice a game.",

  -- R9.4: two players, or four in two teams of two (teammates share one Leader). Each side is
  -- dealt three different cards of the box (seeded: the same game deals the same cards).
  setup = function(ctx, fx)
    local players = ctx:game().players
    local by_team, teams = {}, {}
    for p, info in ipairs(players) do
      if not by_team[info.team] then
        by_team[info.team] = {}
        teams[#teams + 1] = info.team
      end
      table.insert(by_team[info.team], p)
    end
    local two = #players == 2 and #teams == 2
    local pairs_of_two = #players == 4 and #teams == 2 and #by_team[teams[1]] == 2
    if not (two or pairs_of_two) then
      error(
        "Leaders (R9.4) are played by 2 players or by 4 in two teams of two, not by "
          .. #players
          .. " players in "
          .. #teams
          .. " sides: turn `leaders` off or change the seats"
      )
    end
    table.sort(teams)
    for _, team in ipairs(teams) do
      local box = {}
      for n = 1, #cards do
        box[n] = n
      end
      for i = #box, 2, -1 do
        local j = math.random(i)
        box[i], box[j] = box[j], box[i]
      end
      local offer = 0
      for i = 1, 3 do
        offer = offer | (1 << (box[i] - 1))
      end
      for _, p in ipairs(by_team[team]) do
        fx:mark_player(p, "leader_offer", "permanent", offer)
      end
    end
  end,

  -- A side that has been dealt cards picks before it places its HQ: until then every hex is
  -- blocked to it, so picking is all it can do.
  restrict = function(ctx)
    if not ctx:player_marker(ctx:game().player, "leader_offer") then
      return nil
    end
    local block = {}
    for q = -8, 8 do
      for r = -8, 8 do
        if ctx:on_board(q, r) then
          block[#block + 1] = { q, r }
        end
      end
    end
    return { block = block }
  end,

  actions = actions,
})

-- Atlas-style missions (R9.5) as game rules (docs/VARIANTS.md, "Atlas missions").
--
-- Both missions are EXAMPLES of the project's own, not the published Atlas. Each is a board of
-- boards/ and the rule below of the same id, in play when `atlas_map` names it; the rule checks
-- at setup that the game is on its board, with the players and armies the mission allows
-- (R9.5.2), and refuses the game otherwise. The instant draw rule (R9.5.3) is an `[[implies]]` of
-- options.toml.

-- Refuses the game unless `on_board` holds: the mission is played on its own board.
local function require_board(id, on_board)
  if not on_board then
    error(
      "the mission `" .. id .. "` is played on its own board: add `--board " .. id
        .. "` (a scenario: `board = \"" .. id .. "\"`)"
    )
  end
end

-- Refuses the game unless it has `count` players, each alone, and (if `armies` is given) each
-- plays one of those armies.
local function require_players(ctx, id, count, armies)
  local players = ctx:game().players
  local teams = {}
  for _, info in ipairs(players) do
    teams[info.team] = true
  end
  local sides = 0
  for _ in pairs(teams) do
    sides = sides + 1
  end
  if #players ~= count or sides ~= count then
    error(
      "the mission `" .. id .. "` is played by " .. count .. " players, each alone, not by "
        .. #players .. " in " .. sides .. " sides (R9.5.2): change the seats or choose another mission"
    )
  end
  if armies then
    local allowed, names = {}, {}
    for _, a in ipairs(armies) do
      allowed[a] = true
      names[#names + 1] = a
    end
    for p, info in ipairs(players) do
      if not allowed[info.army] then
        error(
          "the mission `" .. id .. "` is played with the armies " .. table.concat(names, ", ")
            .. ", not `" .. info.army .. "` (player " .. p .. ", R9.5.2): choose one of those"
        )
      end
    end
  end
end

-- Whether player `p` has placed their HQ.
local function has_hq(ctx, p)
  for _, t in ipairs(ctx:tiles()) do
    if t.hq and t.owner == p then
      return true
    end
  end
  return false
end

-- Every hex of the board for which `keep(q, r)` holds, as a list of {q, r}.
local function hexes(ctx, keep)
  local list = {}
  for q = -8, 8 do
    for r = -8, 8 do
      if ctx:on_board(q, r) and keep(q, r) then
        list[#list + 1] = { q, r }
      end
    end
  end
  return list
end

-- While the current player's HQ is not placed, the hexes it may not go on, else nil.
local function hq_zone(ctx, forbidden)
  local g = ctx:game()
  if g.turn >= 1 or has_hq(ctx, g.player) then
    return nil
  end
  return { block = hexes(ctx, function(q, r)
    return forbidden(g.player, q, r)
  end) }
end

local function ring(q, r)
  return math.max(math.abs(q), math.abs(r), math.abs(q + r))
end

-- Ashen Crossing: two players, any armies. Player 1 places their HQ on the north bank (r < 0),
-- player 2 on the south bank (r > 0). At the end of a player's turn, each watchtower (hex marker
-- `tower`) a unit of theirs stands on deals 1 wound to the enemy HQ.
rule("ashen_crossing", {
  when = { atlas_map = "ashen_crossing" },
  doc = "Example mission (R9.5): HQs on opposite banks; each watchtower held at the end of your turn wounds the enemy HQ.",

  setup = function(ctx, fx)
    require_board(
      "ashen_crossing",
      ctx:hex_marker(1, -2, "tower") ~= nil and not ctx:on_board(0, 0)
    )
    require_players(ctx, "ashen_crossing", 2, nil)
  end,

  restrict = function(ctx)
    return hq_zone(ctx, function(p, q, r)
      if p == 1 then
        return r >= 0
      end
      return r <= 0
    end)
  end,

  turn_ended = function(ctx, fx)
    local g = ctx:game()
    local me = g.player
    local held = 0
    for _, t in ipairs(ctx:tiles()) do
      if t.owner == me and not t.hq and ctx:hex_marker(t.q, t.r, "tower") then
        held = held + 1
      end
    end
    if held == 0 then
      return
    end
    for _, t in ipairs(ctx:tiles()) do
      if t.hq and t.team ~= g.players[me].team then
        fx:wound(t.q, t.r, held)
      end
    end
  end,
})

-- Beacon Hill: two players with the base armies. No HQ goes on the hill (the centre and the six
-- hexes around it). When a battle ends, the owner of the unit on the beacon (hex marker `beacon`,
-- the centre) lights it once more (player marker `lights`); the first to light it twice wins.
rule("beacon_hill", {
  when = { atlas_map = "beacon_hill" },
  doc = "Example mission (R9.5): no HQ on the hill; hold the beacon when two battles end to win.",

  setup = function(ctx, fx)
    require_board("beacon_hill", ctx:hex_marker(0, 0, "beacon") ~= nil)
    require_players(ctx, "beacon_hill", 2, { "outpost", "moloch", "borgo", "hegemony" })
  end,

  restrict = function(ctx)
    return hq_zone(ctx, function(p, q, r)
      return ring(q, r) <= 1
    end)
  end,

  battle_ended = function(ctx, fx)
    local t = ctx:tile_at(0, 0)
    if t and not t.hq then
      local lights = ctx:player_marker(t.owner, "lights") or 0
      fx:mark_player(t.owner, "lights", "permanent", lights + 1)
    end
  end,

  check = function(ctx, ended)
    for p = 1, #ctx:game().players do
      if (ctx:player_marker(p, "lights") or 0) >= 2 then
        return { winner = p }
      end
    end
  end,
})

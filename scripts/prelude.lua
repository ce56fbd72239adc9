-- The prelude: helpers every ability script may use. Loaded first into every mod's sandbox,
-- read-only afterwards. See docs/LUA_API.md.

-- Hex geometry: axial coordinates (q, r), flat-topped hexes, directions 0 (N) clockwise to 5 (NW),
-- exactly as the engine and the scenario format number them.
hex = {}

hex.directions = {
  [0] = { 0, -1 }, -- N
  [1] = { 1, -1 }, -- NE
  [2] = { 1, 0 },  -- SE
  [3] = { 0, 1 },  -- S
  [4] = { -1, 1 }, -- SW
  [5] = { -1, 0 }, -- NW
}

-- The hex one step from (q, r) in direction d (0-5).
function hex.neighbour(q, r, d)
  local v = hex.directions[d % 6]
  return q + v[1], r + v[2]
end

-- Steps between two hexes.
function hex.distance(q1, r1, q2, r2)
  local dq, dr = q1 - q2, r1 - r2
  return (math.abs(dq) + math.abs(dr) + math.abs(dq + dr)) // 2
end

-- The direction an edge of a tile points to when the tile faces `facing` (edges count
-- clockwise from the front).
function hex.edge_direction(edge, facing)
  return (edge + facing) % 6
end

-- The first hex holding a tile on the line leaving (q, r) in direction d (0-5), skipping empty
-- hexes, up to the board's edge: its q, r, or nil when the line holds no tile. `ctx` is the
-- hook's context (the line is read on its board).
function hex.first_on_line(ctx, q, r, d)
  local cq, cr = hex.neighbour(q, r, d)
  while ctx:on_board(cq, cr) do
    if ctx:tile_at(cq, cr) then
      return cq, cr
    end
    cq, cr = hex.neighbour(cq, cr, d)
  end
  return nil
end

-- A list of the keys of t in a fixed order (numbers, then strings, then booleans), the same in
-- every process. `pairs` already iterates in this order.
function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do
    keys[#keys + 1] = k
  end
  return keys
end

-- Whether a table has no entries.
function is_empty(t)
  for _ in pairs(t) do
    return false
  end
  return true
end

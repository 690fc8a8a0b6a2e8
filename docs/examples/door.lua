-- A door whose lock a command sets ({"locked": true} on its command topic): locked, it stays
-- shut whatever its sensor, the scenario's `open` field, reads. Left open for two minutes, it
-- sends an alarm on a topic of its own, once.

function start(device)
  device.state.locked = false
  device.state.openings = 0
end

function command(device, field, value)
  if field ~= "locked" then return nil end             -- another field: as the scenario says
  if type(value) ~= "boolean" then return false, "locked is true or false" end
  device.state.locked = value
  return true
end

function tick(device)
  local s, f = device.state, device.fields
  local open = f.open and not s.locked
  if open and not s.since then
    s.since, s.openings = device.time, s.openings + 1
  elseif not open then
    s.since, s.alarmed = nil, nil
  end
  if open and not s.alarmed and device.time - s.since >= 120 then
    s.alarmed = true                                   -- this tick sends the alarm instead
    local alarm = { door = device.id, seconds = device.time - s.since }
    return { { topic = "site/" .. device.id .. "/alarm", payload = alarm } }
  end
  f.open, f.locked, f.openings = open, s.locked, s.openings
end

-- A DC fast charger that runs charging sessions. A car plugs in at random (arrivalRate cars an
-- hour while the charger is free) and charges at the charger's full power, or its limit, until
-- its battery is 80 % full; then the power tapers as the battery nears full, as cars ask of fast
-- chargers. At its driver's target the session is finished, and the car stays plugged in a
-- while before it leaves. Now and then (faultRate an hour of charging) the charger faults,
-- stops, and clears after a while; the car charges on.
--   state    idle, charging, finished (the car still plugged in) or fault
--   power    kW now; soc: the car's battery in %, while one is plugged in
--   energy   kWh of this session; meter: kWh over the charger's life; session: its number
-- A command on its topic stops the session, or limits the power (kW):
--   mosquitto_pub -t chargers/charger-1/set -m '{"stop": true}'
--   mosquitto_pub -t chargers/charger-1/set -m '{"limit": 22}'
-- Its parameters are fields of the scenario's, read here and not sent: maxPower, arrivalRate,
-- faultRate; and battery, stay and faultTime, whose generators draw each session's.

-- The least power a limit may leave, in kW.
local lowest = 5

-- Whether an event that comes `perHour` times an hour on average happens within `dt` seconds.
local function happens(perHour, dt)
  return math.random() < 1 - math.exp(-perHour * dt / 3600)
end

-- A car plugs in, its battery a tenth to a half full; its driver wants 85 to 100 %.
local function plugIn(s, f)
  s.session = s.session + 1
  s.battery = f.battery
  s.charge = 0.1 + math.random() * 0.4
  s.target = 0.85 + math.random() * 0.15
  s.energy = 0
  s.state = "charging"
end

-- The session ends; the car leaves after a while.
local function finish(s, f, now)
  s.state = "finished"
  s.leaves = now + f.stay
end

function start(device)
  local s = device.state
  s.state = "idle"
  s.session = 0
  s.energy = 0
  s.meter = 1000 + math.floor(math.random() * 19000)   -- each charger has a past of its own
  s.arriving = math.random() < 0.5                     -- half the chargers have a car at once
end

function command(device, field, value)
  local s = device.state
  if field == "stop" then
    if value ~= true then return false, "stop takes true" end
    if s.state ~= "charging" and s.state ~= "fault" then return false, "no session to stop" end
    s.stopping = true                                  -- the tick that answers ends it
    return true
  elseif field == "limit" then
    local most = s.maxPower or lowest
    if type(value) ~= "number" or value < lowest or value > most then
      return false, string.format("limit is a power in kW from %g to %g", lowest, most)
    end
    s.limit = value
    return true
  end
  return nil                                           -- any other field: as the scenario says
end

function tick(device)
  local s, f, now = device.state, device.fields, device.time
  -- Called at each publish, and beside them (a command's answer): the time since the last call.
  local dt = now - (s.time or now)
  s.time = now
  s.maxPower = f.maxPower
  s.limit = s.limit or f.maxPower
  if s.arriving then
    s.arriving = nil
    plugIn(s, f)
  end
  if s.stopping then
    s.stopping = nil
    finish(s, f, now)
  end
  if s.state == "idle" then
    if happens(f.arrivalRate, dt) then plugIn(s, f) end
  elseif s.state == "fault" then
    if now >= s.clears then s.state = "charging" end
  elseif s.state == "finished" then
    if now >= s.leaves then
      s.state = "idle"
      s.energy = 0
    end
  end
  local power = 0
  if s.state == "charging" then
    if happens(f.faultRate, dt) then
      s.state = "fault"
      s.clears = now + f.faultTime
    else
      -- Full power to 80 %, then less, down to a tenth of it at 100 %.
      local full = math.min(s.limit, f.maxPower)
      power = full * (1 - 0.9 * math.max(0, (s.charge - 0.8) / 0.2))
      local added = power * dt / 3600
      s.energy = s.energy + added
      s.meter = s.meter + added
      s.charge = math.min(1, s.charge + added / s.battery)
      if s.charge >= s.target then
        finish(s, f, now)
        power = 0
      end
    end
  end
  f.state = s.state
  f.power = power
  f.soc = s.state ~= "idle" and s.charge * 100 or nil   -- no car, no battery to tell of
  f.energy = s.energy
  f.meter = s.meter
  f.limit = s.limit
  f.session = s.session
  f.maxPower, f.arrivalRate, f.faultRate, f.battery, f.stay, f.faultTime = nil, nil, nil, nil, nil, nil
end

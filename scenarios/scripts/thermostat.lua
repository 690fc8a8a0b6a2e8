-- A thermostat: it heats toward its setpoint with a hysteresis of half a degree, and its
-- radiator keeps giving heat for a while after it stops, so the room overshoots; the room loses
-- heat toward the temperature outside. A command on its topic moves the setpoint:
--   mosquitto_pub -t home/thermostat-1/set -m '{"setpoint": 23}'
-- Its parameters are fields of the scenario's (heatRate, lossRate, lag), read here and not sent.

function start(device)
  local s = device.state
  s.setpoint = 20
  s.heating = false
  s.radiator = 0                                  -- 0 cold … 1 at full heat
  s.temperature = 17 + math.random() * 2          -- each room starts somewhere of its own
end

function command(device, field, value)
  if field ~= "setpoint" then return nil end      -- any other field: as the scenario says
  if type(value) ~= "number" or value < 5 or value > 30 then
    return false, "setpoint is a number from 5 to 30"
  end
  device.state.setpoint = value
  return true
end

function tick(device)
  local s, f = device.state, device.fields
  local dt = device.time - (s.time or device.time)
  s.time = device.time
  -- Hysteresis: on below setpoint - 0.5, off above setpoint + 0.5.
  if s.temperature < s.setpoint - 0.5 then
    s.heating = true
  elseif s.temperature > s.setpoint + 0.5 then
    s.heating = false
  end
  -- The radiator follows the valve with a lag: the overshoot.
  local target = s.heating and 1 or 0
  s.radiator = s.radiator + (target - s.radiator) * math.min(1, dt / f.lag)
  s.temperature = s.temperature + dt * (f.heatRate * s.radiator - f.lossRate * (s.temperature - f.outside))
  f.temperature = s.temperature
  f.setpoint = s.setpoint
  f.heating = s.heating
  f.heatRate, f.lossRate, f.lag = nil, nil, nil
end

-- A press on a factory floor that takes firmware updates. A command names the version to install:
--   mosquitto_pub -t factory/press-1/set -m '{"firmware": "2.1.0"}'
-- The press answers at once with its state, status "updating", then goes quiet while it installs
-- (updateTime seconds, give or take a quarter: its ticks are skipped, counted as unchanged), and
-- comes back rebooted: a message on factory/<id>/events says which version it left and which it
-- runs now, and its telemetry carries the new firmware, its uptime counted from the reboot.
-- A device's script cannot disconnect it yet, so the press stays connected while it is quiet:
-- the status field and the event say what a broker's will or a lost connection would.
-- Its parameter is a field of the scenario's, read here and not sent: updateTime.

function command(device, field, value)
  local s = device.state
  if field ~= "firmware" then return nil end           -- any other field: as the scenario says
  if type(value) ~= "string" or not value:match("^%d+%.%d+%.%d+$") then
    return false, "firmware is a version such as \"2.1.0\""
  end
  if s.update then return false, "busy installing " .. s.update.to end
  if value == s.firmware then return false, "already runs " .. value end
  s.update = { from = s.firmware, to = value, began = device.time }
  return true
end

function tick(device)
  local s, f, now = device.state, device.fields, device.time
  if not s.firmware then
    s.firmware = f.firmware                             -- the scenario's version
    s.booted = now - math.random(0, 30 * 86400)         -- up for as long as a month already
  end
  local update = s.update
  f.status, f.firmware, f.uptime = "running", s.firmware, math.floor(now - s.booted)
  if update then
    f.status = "updating"
    if not update.ends then
      -- Its first call since the command (the command's answer) says so, once.
      update.ends = now + f.updateTime * (0.75 + math.random() * 0.5)
    elseif now < update.ends then
      return false                                      -- quiet while it installs
    else
      -- Done: rebooted on the new version; this tick's message is the event.
      s.update, s.firmware, s.booted = nil, update.to, update.ends
      return {
        { topic = "factory/" .. device.id .. "/events",
          payload = { event = "firmware updated", from = update.from, to = update.to,
                      seconds = math.floor(update.ends - update.began + 0.5) } },
      }
    end
  end
  f.updateTime = nil
end

#!lua
--[[
  Leases sessions whose outbox may hold events. (store/redis/alerts.ts)
  KEYS: dirty; ARGV: now, lease end, limit
]]
local out = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, member in ipairs(out) do redis.call('ZADD', KEYS[1], ARGV[2], member) end
return out

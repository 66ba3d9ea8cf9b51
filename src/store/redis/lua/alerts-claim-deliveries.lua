#!lua
--[[
  Leases the tenant's due deliveries. (store/redis/alerts.ts)
  KEYS: deliveries, due, leases; ARGV: now, lease end, limit, owner
]]
local out = {}
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))) do
  local record = redis.call('HGET', KEYS[1], id)
  if record then
    redis.call('ZADD', KEYS[2], ARGV[2], id)
    redis.call('HSET', KEYS[3], id, ARGV[4])
    table.insert(out, record)
  else
    redis.call('ZREM', KEYS[2], id)
  end
end
return out

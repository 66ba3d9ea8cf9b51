#!lua
--[[
  Deletes a webhook with its deliveries, log, leases, seen ids, marks and its pending deliveries'
  order and bound entries (alerts-add-delivery.lua). (store/redis/alerts.ts)
  KEYS: webhooks, deliveries, due, log, marks, leases, seen, queue, order members, held, pending,
        pending members
  ARGV: id
]]
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DEL', KEYS[7])
for _, id in ipairs(redis.call('ZRANGE', KEYS[4], 0, -1)) do
  redis.call('HDEL', KEYS[2], id)
  redis.call('ZREM', KEYS[3], id)
  redis.call('HDEL', KEYS[6], id)
  redis.call('HDEL', KEYS[9], id)
  redis.call('HDEL', KEYS[10], id)
  redis.call('HDEL', KEYS[12], id)
end
redis.call('DEL', KEYS[4])
-- every order and bound entry of this webhook begins with its id
redis.call('ZREMRANGEBYLEX', KEYS[8], '[' .. ARGV[1] .. '\0', '(' .. ARGV[1] .. '\1')
redis.call('ZREMRANGEBYLEX', KEYS[11], '[' .. ARGV[1] .. '\0', '(' .. ARGV[1] .. '\1')
local prefix = ARGV[1] .. '\0'
for _, mark in ipairs(redis.call('SMEMBERS', KEYS[5])) do
  if string.sub(mark, 1, #prefix) == prefix then redis.call('SREM', KEYS[5], mark) end
end
return 1

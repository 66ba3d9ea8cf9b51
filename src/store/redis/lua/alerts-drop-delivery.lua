#!lua
--[[
  Drops a delivery from every list of it. (store/redis/alerts.ts)
  KEYS: deliveries, due, leases, log; ARGV: id
]]
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
return 1

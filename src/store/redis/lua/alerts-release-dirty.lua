#!lua
--[[
  Forgets a dirty session, only while the lease is still the caller's. (store/redis/alerts.ts)
  KEYS: dirty; ARGV: member, lease end
]]
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 1

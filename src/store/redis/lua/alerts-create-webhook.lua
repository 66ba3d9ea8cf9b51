#!lua
--[[
  Creates a webhook unless the tenant already holds the cap. (store/redis/alerts.ts)
  KEYS: webhooks; ARGV: cap, id, record
]]
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
return 1

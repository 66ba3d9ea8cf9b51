#!lua
--[[
  Counts one hit in a fixed window, which the first hit opens (the fleet's rate limit).

  Input:
    KEYS[1] the counter

    ARGV[1] the window, ms

  Output:
    {hits so far, ms left in the window}
]]
local counterKey = KEYS[1]
local windowMs = tonumber(ARGV[1])

local hits = redis.call('INCR', counterKey)
local ttl = redis.call('PTTL', counterKey)
if ttl < 0 then
  redis.call('PEXPIRE', counterKey, windowMs)
  ttl = windowMs
end
return {hits, ttl}

#!lua flags=allow-oom
--[[
  Drops a listing index member whose session a listing found gone, unless a write moved it since.
  It only deletes, so it runs when Redis is out of memory too.

  Input:
    KEYS[1] tenant listing index (sorted set)

    ARGV[1] member: the session id
    ARGV[2] the score the listing saw

  Output:
    1 when dropped, else 0
]]
local indexKey = KEYS[1]
local member = ARGV[1]
local seen = tonumber(ARGV[2])

local score = redis.call('ZSCORE', indexKey, member)
if score and tonumber(score) == seen then
  return redis.call('ZREM', indexKey, member)
end
return 0

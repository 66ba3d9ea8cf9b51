--[[
  The newest history entries of a live session.

  Input:
    KEYS[1] session hash
    KEYS[2] history list

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] limit: how many entries at most

  Output:
    the entries (JSON), oldest first; none when the session is absent or expired
]]
local sessionKey = KEYS[1]
local historyKey = KEYS[2]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])

if (tonumber(redis.call('HGET', sessionKey, 'exp')) or 0) <= now then return {} end
return redis.call('LRANGE', historyKey, -limit, -1)

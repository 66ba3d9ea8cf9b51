--[[
  Deletes a session and its history, and tells the other instances when it was live.

  Input:
    KEYS[1] session hash
    KEYS[2] history list

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] the change channel
    ARGV[3] the deletion's change event, JSON

  Output:
    1  a live session was deleted
    0  there was none
]]
local sessionKey = KEYS[1]
local historyKey = KEYS[2]
local now = tonumber(ARGV[1])
local channel = ARGV[2]
local event = ARGV[3]

local live = (tonumber(redis.call('HGET', sessionKey, 'exp')) or 0) > now
redis.call('DEL', sessionKey, historyKey)
if live then
  redis.call('PUBLISH', channel, event)
  return 1
end
return 0

#!lua
--[[
  Stores the brief of a session record that has none (written by an older release), if the
  record is still the one it was made from: the write token matches.

  Input:
    KEYS[1] session hash
    ARGV[1] the token of the record the brief was made from ('' for a record without one)
    ARGV[2] the brief, JSON

  Output:
    1  stored
    0  the record changed or is gone: nothing stored
]]
local sessionKey = KEYS[1]
local current = redis.call('HMGET', sessionKey, 't', 'data')
if not current[2] or (current[1] or '') ~= ARGV[1] then return 0 end
redis.call('HSET', sessionKey, 'b', ARGV[2], 'bt', ARGV[1])
return 1

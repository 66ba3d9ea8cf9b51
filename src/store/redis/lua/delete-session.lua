#!lua
--[[
  Deletes a live session and its history, leaving a tombstone that keeps its last version for the
  session TTL (so a re-created session goes on from there, and no version names two states), and
  tells the other instances. On standalone Redis it also drops the session from the tenant's
  listing index. A write script (no flags): refused up front when Redis is out of memory.

  Input:
    KEYS[1] session hash
    KEYS[2] history list
    KEYS[3] tenant listing index (standalone Redis only; absent on Cluster)

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] the session TTL, ms: how long the tombstone holds
    ARGV[3] the change channel
    ARGV[4] the deletion's change event, JSON
    ARGV[5] the session id (listing index member)

  Output:
    1  a live session was deleted
    0  there was none (an expired record or a tombstone stays as it is)
]]
local sessionKey = KEYS[1]
local historyKey = KEYS[2]
local indexKey = KEYS[3]
local now = tonumber(ARGV[1])
local ttlMs = tonumber(ARGV[2])
local channel = ARGV[3]
local event = ARGV[4]
local member = ARGV[5]

local current = redis.call('HMGET', sessionKey, 'v', 'exp')
local live = current[1] and (tonumber(current[2]) or 0) > now
if indexKey then redis.call('ZREM', indexKey, member) end
if not live then return 0 end
redis.call('DEL', sessionKey, historyKey)
redis.call('HSET', sessionKey, 'v', current[1], 'tomb', now + ttlMs)
redis.call('PEXPIRE', sessionKey, ttlMs)
redis.call('PUBLISH', channel, event)
return 1

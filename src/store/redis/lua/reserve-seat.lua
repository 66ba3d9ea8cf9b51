#!lua
--[[
  Cluster only: holds a seat in the tenant's session count for one creation, unless the tenant's
  live sessions (its listing index) and the seats of creations in flight reach the cap. The
  tenant's keys live in another slot than the session's, so the count and the creation cannot be
  one script: the seat makes them one step. The creation writes only before the seat's deadline
  (write-session.lua compares it with the server clock), index-add.lua gives the seat back once
  the session counts in the index, and a creation that does not happen drops it.

  Input:
    KEYS[1] tenant listing index (sorted set: session id by updated_at)
    KEYS[2] the tenant's seats (sorted set: seat by deadline, server time ms)

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] the session TTL, ms: sessions updated before now - TTL have expired
    ARGV[3] the cap
    ARGV[4] the seat (unique per creation)
    ARGV[5] how long the seat holds, ms

  Output:
    the seat's deadline (server time ms) when held; 0 when the tenant is at the cap
]]
local indexKey = KEYS[1]
local seatsKey = KEYS[2]
local now = tonumber(ARGV[1])
local ttlMs = tonumber(ARGV[2])
local cap = tonumber(ARGV[3])
local seat = ARGV[4]
local seatMs = tonumber(ARGV[5])

local time = redis.call('TIME')
local serverNow = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', seatsKey, '-inf', serverNow)
local live = redis.call('ZCOUNT', indexKey, '(' .. (now - ttlMs), '+inf')
if live + redis.call('ZCARD', seatsKey) >= cap then return 0 end
local deadline = serverNow + seatMs
redis.call('ZADD', seatsKey, deadline, seat)
redis.call('PEXPIRE', seatsKey, seatMs)
return deadline

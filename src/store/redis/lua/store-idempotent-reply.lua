#!lua
--[[
  Stores the reply of an update that decided not to write, while the request's claim holds (an
  update that writes stores its reply in write-session.lua).

  Input:
    KEYS[1] idempotency record (hash: fp, tok, reply, exp)

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] the claim's token
    ARGV[3] the reply
    ARGV[4] when the reply lapses, epoch ms
    ARGV[5] its TTL, ms

  Output:
    1  stored
    0  the claim no longer holds: nothing stored
]]
local recordKey = KEYS[1]
local now = tonumber(ARGV[1])
local token = ARGV[2]
local reply = ARGV[3]
local expiresAt = ARGV[4]
local ttlMs = ARGV[5]

local claim = redis.call('HMGET', recordKey, 'tok', 'reply', 'exp')
if claim[1] ~= token or claim[2] or (tonumber(claim[3]) or 0) <= now then return 0 end
redis.call('HSET', recordKey, 'reply', reply, 'exp', expiresAt)
redis.call('PEXPIRE', recordKey, ttlMs)
return 1

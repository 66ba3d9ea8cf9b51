#!lua
--[[
  Claims an Idempotency-Key for a request in flight under a token, unless a live record holds
  it. The write script stores the reply only while this token's claim holds.

  Input:
    KEYS[1] idempotency record (hash: fp, tok, reply, exp)

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] the request's fingerprint
    ARGV[3] the claim's token
    ARGV[4] when the claim lapses, epoch ms
    ARGV[5] the claim's TTL, ms

  Output:
    nil                     claimed
    {fingerprint, reply}    the live record (reply nil while its request is in flight)
]]
local recordKey = KEYS[1]
local now = tonumber(ARGV[1])
local fingerprint = ARGV[2]
local token = ARGV[3]
local expiresAt = ARGV[4]
local ttlMs = ARGV[5]

local record = redis.call('HMGET', recordKey, 'fp', 'reply', 'exp')
if record[1] and (tonumber(record[3]) or 0) > now then return {record[1], record[2]} end
redis.call('DEL', recordKey)
redis.call('HSET', recordKey, 'fp', fingerprint, 'tok', token, 'exp', expiresAt)
redis.call('PEXPIRE', recordKey, ttlMs)
return false

--[[
  Stores the reply of a claimed Idempotency-Key.

  Input:
    KEYS[1] idempotency record (hash)

    ARGV[1] the request's fingerprint
    ARGV[2] the reply
    ARGV[3] when the record lapses, epoch ms
    ARGV[4] its TTL, ms

  Output:
    1
]]
local recordKey = KEYS[1]
local fingerprint = ARGV[1]
local reply = ARGV[2]
local expiresAt = ARGV[3]
local ttlMs = ARGV[4]

redis.call('HSET', recordKey, 'fp', fingerprint, 'reply', reply, 'exp', expiresAt)
redis.call('PEXPIRE', recordKey, ttlMs)
return 1

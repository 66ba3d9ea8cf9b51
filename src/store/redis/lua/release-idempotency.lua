#!lua flags=allow-oom
--[[
  Drops a claim whose request did not commit, so a retry runs again: only this token's claim,
  and only while no reply is stored (a release after a late commit changes nothing). It only
  deletes, so it runs when Redis is out of memory too.

  Input:
    KEYS[1] idempotency record (hash: fp, tok, reply, exp)

    ARGV[1] the claim's token

  Output:
    1 when dropped, else 0
]]
local recordKey = KEYS[1]
local token = ARGV[1]

local claim = redis.call('HMGET', recordKey, 'tok', 'reply')
if claim[1] == token and not claim[2] then return redis.call('DEL', recordKey) end
return 0

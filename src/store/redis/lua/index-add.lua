--[[
  Moves a session in its tenant's listing index (Cluster only: on standalone Redis the write
  script does it). GT keeps a late, older write from moving a session back; the index lives as
  long as its newest session.

  Input:
    KEYS[1] tenant listing index (sorted set)

    ARGV[1] score: the session's updated_at, epoch ms
    ARGV[2] member: the session id
    ARGV[3] the session TTL, ms

  Output:
    1
]]
local indexKey = KEYS[1]
local score = ARGV[1]
local member = ARGV[2]
local ttlMs = ARGV[3]

redis.call('ZADD', indexKey, 'GT', score, member)
redis.call('PEXPIRE', indexKey, ttlMs)
return 1

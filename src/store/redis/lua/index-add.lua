#!lua
--[[
  Cluster only (on standalone Redis the write script does it): moves a session in its tenant's
  listing index after its write, and gives back the seat its creation held in the tenant's count
  (the session now counts in the index itself). GT keeps a late, older write from moving a
  session back; the index lives as long as its newest session.

  Input:
    KEYS[1] tenant listing index (sorted set: session id by updated_at)
    KEYS[2] the tenant's seats (sorted set: seat by deadline)

    ARGV[1] score: the session's updated_at, epoch ms
    ARGV[2] member: the session id
    ARGV[3] the session TTL, ms
    ARGV[4] the creation's seat, or '' for none

  Output:
    1
]]
local indexKey = KEYS[1]
local seatsKey = KEYS[2]
local score = ARGV[1]
local member = ARGV[2]
local ttlMs = ARGV[3]
local seat = ARGV[4]

redis.call('ZADD', indexKey, 'GT', score, member)
redis.call('PEXPIRE', indexKey, ttlMs)
if seat ~= '' then redis.call('ZREM', seatsKey, seat) end
return 1

--[[
  Stores the next version of a session, if the session is still in the state the updater saw
  (compare-and-set on the version and the token of the write that stored it), with its history
  entry, both TTLs and the change event; on standalone Redis it also moves the session in the
  tenant's listing index.

  The base matches when the live record has the expected version and token (a record written
  before tokens existed has none and matches '' at the same version), or when there is no live
  record and the expected version is 0.

  Input:
    KEYS[1] session hash
    KEYS[2] history list
    KEYS[3] tenant listing index (standalone Redis only; absent on Cluster)

    ARGV[1] the write, JSON:
      expectedVersion  version of the record the updater saw (0: absent)
      expectedToken    token of that record ('' for a record without one)
      now              the store's clock, epoch ms
      version          the new version
      token            the new write token, unique across the fleet
      expiresAt        now + ttlMs: when the session counts as absent
      ttlMs            the session TTL
      historyLimit     history entries kept
      channel          the change channel
      score            listing index score (updated_at)
      member           listing index member (session id)
    ARGV[2] the session record, JSON
    ARGV[3] its history entry, JSON
    ARGV[4] its change event, JSON

  Output:
    {1}                   written
    {0, record, token}    another writer won: its live record and token (nil for none)
    {0}                   the session is absent while the updater saw it live
]]
local sessionKey = KEYS[1]
local historyKey = KEYS[2]
local indexKey = KEYS[3]
local write = cjson.decode(ARGV[1])
local record = ARGV[2]
local historyEntry = ARGV[3]
local event = ARGV[4]

local current = redis.call('HMGET', sessionKey, 'v', 'exp', 't')
local version, expiresAt, token = current[1], tonumber(current[2]) or 0, current[3] or ''
local live = version and expiresAt > write.now
if live then
  if tonumber(version) ~= write.expectedVersion or token ~= write.expectedToken then
    return {0, redis.call('HGET', sessionKey, 'data'), current[3]}
  end
else
  if write.expectedVersion ~= 0 then return {0} end
  redis.call('DEL', sessionKey, historyKey)
end

redis.call('HSET', sessionKey, 'v', write.version, 'exp', write.expiresAt, 'data', record,
  't', write.token)
redis.call('PEXPIRE', sessionKey, write.ttlMs)
redis.call('RPUSH', historyKey, historyEntry)
redis.call('LTRIM', historyKey, -write.historyLimit, -1)
redis.call('PEXPIRE', historyKey, write.ttlMs)
redis.call('PUBLISH', write.channel, event)
if indexKey then
  -- GT: a late, older write never moves a session back
  redis.call('ZADD', indexKey, 'GT', write.score, write.member)
  redis.call('PEXPIRE', indexKey, write.ttlMs)
end
return {1}

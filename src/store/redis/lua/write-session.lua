#!lua
--[[
  Stores the next version of a session, if the session is still in the state the updater saw:
  compare-and-set on the version and the token of the write that stored it, or, for a new
  session, on the version floor its tombstone sets. In the same atomic step: the history entry,
  both TTLs, the change event, the reply of the Idempotency-Key the write answers (only while
  the request's claim still holds), and on standalone Redis the tenant's listing index and its
  session cap. A write script (no flags), so Redis refuses it up front when out of memory.

  Input:
    KEYS[1] session hash
    KEYS[2] history list
    KEYS[3] idempotency record, when the write answers an Idempotency-Key
    KEYS[3] or KEYS[4] tenant listing index, on standalone Redis (in another slot on Cluster)
    last    the session's alert outbox, when the write has events (same slot as the session)

    ARGV, positional, as plain strings (no JSON to decode here: the caller knows each value):
      ARGV[1]  create          '1': the updater saw no live session
      ARGV[2]  expectedVersion version the updater saw; for a new session, the version floor it
                               was given
      ARGV[3]  expectedToken   token of the record it saw ('' for none, or for a record without
                               one)
      ARGV[4]  now             the store's clock, epoch ms
      ARGV[5]  version         the new version
      ARGV[6]  token           the new write token, unique across the fleet
      ARGV[7]  expiresAt       now + ttlMs: when the session counts as absent
      ARGV[8]  ttlMs           the session TTL
      ARGV[9]  historyLimit    history entries kept
      ARGV[10] channel         the change channel
      ARGV[11] claimToken      the token of the request's claim on the idempotency record
                               (KEYS[3]), or '' when the write answers no Idempotency-Key
      ARGV[12] replyExpiresAt  when the stored reply lapses, epoch ms
      ARGV[13] replyTtlMs      its TTL
      ARGV[14] indexed         '1': the tenant listing index is the next key
      ARGV[15] score           its score for the session (updated_at)
      ARGV[16] member          its member (the session id)
      ARGV[17] cap             refuse a new session when the index holds this many live ones
                               ('0': none)
      ARGV[18] seatDeadline    Cluster: server time (ms) until which the creation's seat in the
                               tenant's count holds (reserve-seat.lua); '' when none
      ARGV[19] quiet           '1': the version stays (an existing session's record only): no
                               history entry (the change event says quiet)
      ARGV[20] the session record, JSON
      ARGV[21] its history entry, JSON ('' for a quiet write)
      ARGV[22] its change event, JSON
      ARGV[23] its brief (store/brief.ts), JSON: what listings read instead of the record; kept
               with the token of the write that stored it, so a record rewritten without one
               (by an older release) shows its brief as missing
      ARGV[24] the reply to store, when the write answers an Idempotency-Key ('' otherwise)
      ARGV[25..] the alert transitions of the write (JSON texts), when any: appended to the
               outbox (the last key), so an event is stored with the change that caused it

  Output:
    {1}                         written
    {0, record, token}          a live session that is not the one the updater saw: the
                                winner's record and token (nil for a record without one)
    {0, nil, nil, floor}        no live session, while the updater saw one or another floor:
                                the version a new session follows (0 without a tombstone)
    {-1}                        the claim no longer holds (lapsed, released, taken over, or
                                answered): nothing written
    {-2}                        the tenant holds `cap` live sessions: nothing created
    {-3}                        the creation's seat lapsed: nothing created
]]
local sessionKey = KEYS[1]
local historyKey = KEYS[2]
local create = ARGV[1] == '1'
local expectedVersion = tonumber(ARGV[2])
local expectedToken = ARGV[3]
local now = tonumber(ARGV[4])
local newToken = ARGV[6]
local ttlMs = ARGV[8]
local claimToken = ARGV[11]
local cap = tonumber(ARGV[17])
local seatDeadline = tonumber(ARGV[18])
local nextKey = 3
local idempotencyKey, indexKey, outboxKey
if claimToken ~= '' then
  idempotencyKey = KEYS[nextKey]
  nextKey = nextKey + 1
end
if ARGV[14] == '1' then
  indexKey = KEYS[nextKey]
  nextKey = nextKey + 1
end
if #ARGV > 24 then outboxKey = KEYS[nextKey] end

if idempotencyKey then
  local claim = redis.call('HMGET', idempotencyKey, 'tok', 'reply', 'exp')
  if claim[1] ~= claimToken or claim[2] or (tonumber(claim[3]) or 0) <= now then
    return {-1}
  end
end

local current = redis.call('HMGET', sessionKey, 'v', 'exp', 't', 'tomb')
local version = tonumber(current[1])
local token = current[3]
local live = version ~= nil and (tonumber(current[2]) or 0) > now
if live then
  if create or version ~= expectedVersion or (token or '') ~= expectedToken then
    return {0, redis.call('HGET', sessionKey, 'data'), token}
  end
else
  -- a tombstone keeps a deleted session's last version: a new session goes on from there
  local floor = 0
  if version ~= nil and (tonumber(current[4]) or 0) > now then floor = version end
  if not create or expectedVersion ~= floor then return {0, false, false, floor} end
  if indexKey and cap > 0 then
    local held = redis.call('ZCOUNT', indexKey, '(' .. (now - tonumber(ttlMs)), '+inf')
    if held >= cap then return {-2} end
  end
  if seatDeadline then
    local time = redis.call('TIME')
    local serverNow = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    if serverNow > seatDeadline then return {-3} end
  end
  -- what an expired session or a tombstone left
  redis.call('DEL', sessionKey, historyKey)
end

redis.call('HSET', sessionKey, 'v', ARGV[5], 'exp', ARGV[7], 'data', ARGV[20], 't', newToken,
  'b', ARGV[23], 'bt', newToken)
redis.call('PEXPIRE', sessionKey, ttlMs)
if ARGV[19] ~= '1' then
  redis.call('RPUSH', historyKey, ARGV[21])
  redis.call('LTRIM', historyKey, '-' .. ARGV[9], -1)
end
redis.call('PEXPIRE', historyKey, ttlMs)
if idempotencyKey then
  redis.call('HSET', idempotencyKey, 'reply', ARGV[24], 'exp', ARGV[12])
  redis.call('PEXPIRE', idempotencyKey, ARGV[13])
end
if outboxKey then
  for i = 25, #ARGV do redis.call('RPUSH', outboxKey, ARGV[i]) end
  redis.call('PEXPIRE', outboxKey, ttlMs)
end
redis.call('PUBLISH', ARGV[10], ARGV[22])
if indexKey then
  -- GT: a late, older write never moves a session back
  redis.call('ZADD', indexKey, 'GT', ARGV[15], ARGV[16])
  redis.call('PEXPIRE', indexKey, ttlMs)
end
return {1}

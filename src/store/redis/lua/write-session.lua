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
    last    the session's alert outbox, when `outbox` (same slot as the session)

    ARGV[1] the write, JSON:
      create           the updater saw no live session
      expectedVersion  version the updater saw; for a new session, the version floor it was given
      expectedToken    token of the record it saw ('' for none, or for a record without one)
      now              the store's clock, epoch ms
      version          the new version
      token            the new write token, unique across the fleet
      expiresAt        now + ttlMs: when the session counts as absent
      ttlMs            the session TTL
      historyLimit     history entries kept
      channel          the change channel
      idempotent       KEYS[3] is the idempotency record
      claimToken       the token of the request's claim on it
      replyExpiresAt   when the stored reply lapses, epoch ms
      replyTtlMs       its TTL
      indexed          the tenant listing index is the last key
      score            its score for the session (updated_at)
      member           its member (the session id)
      cap              refuse a new session when the index holds this many live ones (0: none)
      seatDeadline     Cluster: server time (ms) until which the creation's seat in the
                       tenant's count holds (reserve-seat.lua); absent when none
      quiet            the version stays (an existing session's record only): no history
                       entry (the change event says quiet)
      outbox           the last key is the session's alert outbox
      events           the alert transitions of the write (JSON texts): appended to it, so an
                       event is stored with the change that caused it
    ARGV[2] the session record, JSON
    ARGV[3] its history entry, JSON ('' for a quiet write)
    ARGV[4] its change event, JSON
    ARGV[5] its brief (store/brief.ts), JSON: what listings read instead of the record; kept
            with the token of the write that stored it, so a record rewritten without one
            (by an older release) shows its brief as missing
    ARGV[6] the reply to store, when idempotent

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
local write = cjson.decode(ARGV[1])
local record = ARGV[2]
local historyEntry = ARGV[3]
local event = ARGV[4]
local brief = ARGV[5]
local reply = ARGV[6]
local nextKey = 3
local idempotencyKey, indexKey
if write.idempotent then
  idempotencyKey = KEYS[nextKey]
  nextKey = nextKey + 1
end
local outboxKey
if write.indexed then
  indexKey = KEYS[nextKey]
  nextKey = nextKey + 1
end
if write.outbox then outboxKey = KEYS[nextKey] end

if idempotencyKey then
  local claim = redis.call('HMGET', idempotencyKey, 'tok', 'reply', 'exp')
  if claim[1] ~= write.claimToken or claim[2] or (tonumber(claim[3]) or 0) <= write.now then
    return {-1}
  end
end

local current = redis.call('HMGET', sessionKey, 'v', 'exp', 't', 'tomb')
local version = tonumber(current[1])
local token = current[3]
local live = version ~= nil and (tonumber(current[2]) or 0) > write.now
if live then
  if write.create or version ~= write.expectedVersion or (token or '') ~= write.expectedToken then
    return {0, redis.call('HGET', sessionKey, 'data'), token}
  end
else
  -- a tombstone keeps a deleted session's last version: a new session goes on from there
  local floor = 0
  if version ~= nil and (tonumber(current[4]) or 0) > write.now then floor = version end
  if not write.create or write.expectedVersion ~= floor then return {0, false, false, floor} end
  if indexKey and write.cap > 0 then
    local held = redis.call('ZCOUNT', indexKey, '(' .. (write.now - write.ttlMs), '+inf')
    if held >= write.cap then return {-2} end
  end
  if write.seatDeadline then
    local time = redis.call('TIME')
    local serverNow = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
    if serverNow > write.seatDeadline then return {-3} end
  end
  -- what an expired session or a tombstone left
  redis.call('DEL', sessionKey, historyKey)
end

redis.call('HSET', sessionKey, 'v', write.version, 'exp', write.expiresAt, 'data', record,
  't', write.token, 'b', brief, 'bt', write.token)
redis.call('PEXPIRE', sessionKey, write.ttlMs)
if not write.quiet then
  redis.call('RPUSH', historyKey, historyEntry)
  redis.call('LTRIM', historyKey, -write.historyLimit, -1)
end
redis.call('PEXPIRE', historyKey, write.ttlMs)
if idempotencyKey then
  redis.call('HSET', idempotencyKey, 'reply', reply, 'exp', write.replyExpiresAt)
  redis.call('PEXPIRE', idempotencyKey, write.replyTtlMs)
end
if outboxKey then
  for _, alertEvent in ipairs(write.events) do redis.call('RPUSH', outboxKey, alertEvent) end
  redis.call('PEXPIRE', outboxKey, write.ttlMs)
end
redis.call('PUBLISH', write.channel, event)
if indexKey then
  -- GT: a late, older write never moves a session back
  redis.call('ZADD', indexKey, 'GT', write.score, write.member)
  redis.call('PEXPIRE', indexKey, write.ttlMs)
end
return {1}

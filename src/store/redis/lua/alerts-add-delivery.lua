#!lua
--[[
  Adds a delivery once, and trims the settled oldest of its webhook's log. (store/redis/alerts.ts)
  KEYS: deliveries, due, log, seen; ARGV: id, record, due ('' none), created_at, log limit, now, seen ms, trim look
  A delivery is added once: not if its id is in the log or was trimmed from it within the last
  SEEN_MS (`seen`: a dispatch repeated after the first one's delivery left the log, e.g. two
  instances that drained one outbox while a write listed it again, sends nothing twice).
  The log's oldest beyond the limit leave it, but never a pending one (in `due`): it leaves once
  settled, so a receiver that was down while more than the log's length piled up loses none.
  At most LOG_TRIM_LOOK past the excess are looked at per add (a long backlog is not walked).
]]
if redis.call('ZSCORE', KEYS[4], ARGV[1]) then return 0 end
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
if ARGV[3] ~= '' then redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1]) end
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[5])
if over > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', '(' .. (tonumber(ARGV[6]) - tonumber(ARGV[7])))
  for _, id in ipairs(redis.call('ZRANGE', KEYS[3], 0, over + tonumber(ARGV[8]) - 1)) do
    if over <= 0 then break end
    if not redis.call('ZSCORE', KEYS[2], id) then
      redis.call('HDEL', KEYS[1], id)
      redis.call('ZREM', KEYS[3], id)
      redis.call('ZADD', KEYS[4], ARGV[6], id)
      over = over - 1
    end
  end
  redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[7]))
end
return 1

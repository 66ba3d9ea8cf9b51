#!lua
--[[
  Moves the tenant's stale mark and lists what turned stale since, once for the fleet. (store/redis/alerts.ts)
  KEYS: scan mark, listing index, stale list; ARGV: staleBefore, start (the mark is never before it)
]]
local mark = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if mark < tonumber(ARGV[2]) then mark = tonumber(ARGV[2]) end
redis.call('SET', KEYS[1], ARGV[1])
if mark >= tonumber(ARGV[1]) then return 0 end
local found = redis.call('ZRANGEBYSCORE', KEYS[2], mark, '(' .. ARGV[1], 'WITHSCORES')
for i = 1, #found, 2 do
  redis.call('RPUSH', KEYS[3], cjson.encode({kind = 'stale', session_id = found[i], at = tonumber(found[i + 1]),
    id = 'stale:' .. found[i] .. ':' .. found[i + 1]}))
end
return #found / 2

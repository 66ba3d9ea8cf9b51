#!lua
--[[
  Drops a session's unsent session.waiting deliveries (the wait ended before its delay). (store/redis/alerts.ts)
  KEYS: deliveries, marks; ARGV: session id
]]
for _, record in ipairs(redis.call('HVALS', KEYS[1])) do
  local d = cjson.decode(record)
  if d.session_id == ARGV[1] and d.type == 'session.waiting' and d.status == 'pending' and d.attempts == 0 then
    redis.call('HDEL', KEYS[1], d.id)
    redis.call('ZREM', KEYS[2], d.id)
  end
end
return 1

#!lua
--[[
  Drops a session's unsent session.waiting deliveries (the wait ended before its delay); the next
  of each one's order goes. (store/redis/alerts.ts)
  KEYS: deliveries, due, queue, order members, held, pending, pending members; ARGV: session id
]]
local DELIVERIES, DUE = KEYS[1], KEYS[2]
local QUEUE, ORDM, HELD, PENDING, PM = KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]

local function leave(id)
  redis.call('HDEL', HELD, id)
  local pm = redis.call('HGET', PM, id)
  if pm then redis.call('ZREM', PENDING, pm) redis.call('HDEL', PM, id) end
  local member = redis.call('HGET', ORDM, id)
  if not member then return end
  redis.call('ZREM', QUEUE, member)
  redis.call('HDEL', ORDM, id)
  local order = string.sub(member, 1, #member - #id - 18)
  local head = redis.call('ZRANGEBYLEX', QUEUE, '[' .. order .. '\0', '(' .. order .. '\1', 'LIMIT', 0, 1)[1]
  if head then
    local nextId = string.sub(head, #order + 19)
    local at = redis.call('HGET', HELD, nextId)
    if at then redis.call('ZADD', DUE, at, nextId) redis.call('HDEL', HELD, nextId) end
  end
end

for _, record in ipairs(redis.call('HVALS', DELIVERIES)) do
  local d = cjson.decode(record)
  if d.session_id == ARGV[1] and d.type == 'session.waiting' and d.status == 'pending' and d.attempts == 0 then
    redis.call('HDEL', DELIVERIES, d.id)
    redis.call('ZREM', DUE, d.id)
    leave(d.id)
  end
end
return 1

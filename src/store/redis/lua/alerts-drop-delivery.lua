#!lua
--[[
  Drops a delivery from every list of it; the next of its order goes. (store/redis/alerts.ts)
  KEYS: deliveries, due, leases, log, queue, order members, held, pending, pending members
  ARGV: id
]]
local DELIVERIES, DUE, LEASES, LOG = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local QUEUE, ORDM, HELD, PENDING, PM = KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9]

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

redis.call('HDEL', DELIVERIES, ARGV[1])
redis.call('ZREM', DUE, ARGV[1])
redis.call('HDEL', LEASES, ARGV[1])
redis.call('ZREM', LOG, ARGV[1])
leave(ARGV[1])
return 1

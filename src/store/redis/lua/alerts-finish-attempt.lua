#!lua
--[[
  Settles an attempt, only while its lease is the caller's; a delivery that ends lets the next of
  its order go (alerts-add-delivery.lua). (store/redis/alerts.ts)
  KEYS: deliveries, due, leases, queue, order members, held, pending, pending members
  ARGV: id, owner, record, next due ('' for none)
]]
local DELIVERIES, DUE, LEASES = KEYS[1], KEYS[2], KEYS[3]
local QUEUE, ORDM, HELD, PENDING, PM = KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8]

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

if redis.call('HGET', LEASES, ARGV[1]) ~= ARGV[2] then return 0 end
redis.call('HDEL', LEASES, ARGV[1])
if redis.call('HEXISTS', DELIVERIES, ARGV[1]) == 0 then return 0 end
redis.call('HSET', DELIVERIES, ARGV[1], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('ZADD', DUE, ARGV[4], ARGV[1])
else
  redis.call('ZREM', DUE, ARGV[1])
  leave(ARGV[1])
end
return 1

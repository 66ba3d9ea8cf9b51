#!lua
--[[
  Adds a delivery once, keeps its webhook's pending ones within the bound, and trims the settled
  oldest of its webhook's log. (store/redis/alerts.ts)
  KEYS: deliveries, due, log, seen, leases, seq, queue, order members, held, pending, pending members
  ARGV: id, record, due ('' none), created_at, log limit, now, seen ms, trim look, order ('' none),
        webhook id, pending limit, overflow error
  Reply: the types of the pending deliveries that gave way at the bound ({} when nothing was added)
  A delivery is added once: not if its id is in the log or was trimmed from it within the last
  SEEN_MS (`seen`: a dispatch repeated after the first one's delivery left the log, e.g. two
  instances that drained one outbox while a write listed it again, sends nothing twice).
  Order: `queue` holds `order \0 seq \0 id` of every pending delivery that keeps an order (all
  scores 0: by order, then by when it was added); only the first of an order is in `due`, the
  others wait in `held` (id → their due) until the one before them leaves (`leave` below, the
  same in the finish and drop scripts). `pending` holds `webhook \0 seq \0 id` of every pending
  delivery, for the bound: past it, the oldest that no attempt holds becomes `failed`.
  The log's oldest beyond the limit leave it, but never a pending one: it leaves once settled, so
  a receiver that was down while more than the log's length piled up loses none (up to the bound).
  At most LOG_TRIM_LOOK past the excess are looked at per add (a long backlog is not walked).
]]
local DELIVERIES, DUE, LOG, SEEN, LEASES, SEQ = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local QUEUE, ORDM, HELD, PENDING, PM = KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11]

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

if redis.call('ZSCORE', SEEN, ARGV[1]) then return {} end
if redis.call('HSETNX', DELIVERIES, ARGV[1], ARGV[2]) == 0 then return {} end
local failed = {}
if ARGV[3] ~= '' then
  local seq = string.format('%016d', redis.call('INCR', SEQ))
  local pm = ARGV[10] .. '\0' .. seq .. '\0' .. ARGV[1]
  redis.call('ZADD', PENDING, 0, pm)
  redis.call('HSET', PM, ARGV[1], pm)
  local held = false
  if ARGV[9] ~= '' then
    held = redis.call('ZRANGEBYLEX', QUEUE, '[' .. ARGV[9] .. '\0', '(' .. ARGV[9] .. '\1', 'LIMIT', 0, 1)[1] ~= nil
    local member = ARGV[9] .. '\0' .. seq .. '\0' .. ARGV[1]
    redis.call('ZADD', QUEUE, 0, member)
    redis.call('HSET', ORDM, ARGV[1], member)
  end
  if held then redis.call('HSET', HELD, ARGV[1], ARGV[3]) else redis.call('ZADD', DUE, ARGV[3], ARGV[1]) end
  local from, to = '[' .. ARGV[10] .. '\0', '(' .. ARGV[10] .. '\1'
  local over = redis.call('ZLEXCOUNT', PENDING, from, to) - tonumber(ARGV[11])
  if over > 0 then
    for _, pmember in ipairs(redis.call('ZRANGEBYLEX', PENDING, from, to, 'LIMIT', 0, over + tonumber(ARGV[8]))) do
      if over <= 0 then break end
      local id = string.sub(pmember, #ARGV[10] + 19)
      if redis.call('HEXISTS', LEASES, id) == 0 then
        local record = redis.call('HGET', DELIVERIES, id)
        if record then
          local d = cjson.decode(record)
          d.status = 'failed'
          d.last_error = ARGV[12]
          d.next_attempt_at = cjson.null
          redis.call('HSET', DELIVERIES, id, cjson.encode(d))
          table.insert(failed, d.type)
        end
        redis.call('ZREM', DUE, id)
        leave(id)
        over = over - 1
      end
    end
  end
end
redis.call('ZADD', LOG, ARGV[4], ARGV[1])
local over = redis.call('ZCARD', LOG) - tonumber(ARGV[5])
if over > 0 then
  redis.call('ZREMRANGEBYSCORE', SEEN, '-inf', '(' .. (tonumber(ARGV[6]) - tonumber(ARGV[7])))
  for _, id in ipairs(redis.call('ZRANGE', LOG, 0, over + tonumber(ARGV[8]) - 1)) do
    if over <= 0 then break end
    if not redis.call('HGET', PM, id) and not redis.call('ZSCORE', DUE, id) then
      redis.call('HDEL', DELIVERIES, id)
      redis.call('ZREM', LOG, id)
      redis.call('ZADD', SEEN, ARGV[6], id)
      over = over - 1
    end
  end
  redis.call('PEXPIRE', SEEN, tonumber(ARGV[7]))
end
return failed

#!lua flags=no-writes
--[[
  A page of a live session's history: the newest `limit` entries older than `before`. Every
  write appends one entry with the next version and the list keeps the newest ones, so the
  entry of version x sits at index x - newest - 1 from the end.

  Input:
    KEYS[1] session hash
    KEYS[2] history list

    ARGV[1] now: the store's clock, epoch ms
    ARGV[2] limit: how many entries at most (> 0)
    ARGV[3] before: only versions below this one; 0 for the newest
    ARGV[4] maxBytes: entries are taken newest first until their JSON adds up to more than
            this, the entry that passes it included (the newest always); '' or absent: no budget

  Output:
    the entries (JSON), oldest first; none when the session is absent or expired
]]
local sessionKey = KEYS[1]
local historyKey = KEYS[2]
local now = tonumber(ARGV[1])
local limit = tonumber(ARGV[2])
local before = tonumber(ARGV[3])

local current = redis.call('HMGET', sessionKey, 'v', 'exp')
local newest = tonumber(current[1])
if not newest or (tonumber(current[2]) or 0) <= now then return {} end
local stop = -1
if before > 0 and before <= newest then stop = before - newest - 2 end
local maxBytes = tonumber(ARGV[4] or '')
if not maxBytes then return redis.call('LRANGE', historyKey, stop - limit + 1, stop) end
-- one entry at a time from the newest, so a page of large lists reads about its budget
local taken = {}
local bytes = 0
for index = stop, stop - limit + 1, -1 do
  local entry = redis.call('LRANGE', historyKey, index, index)[1]
  if not entry then break end
  table.insert(taken, 1, entry)
  bytes = bytes + #entry
  if bytes > maxBytes then break end
end
return taken

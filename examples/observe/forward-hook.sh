#!/bin/sh
# agent-todos: forward one agent hook input (stdin) to the service's ingest route.
#   forward-hook.sh claude-code | codex | gemini-cli
# Reads AGENT_TODOS_URL (default http://127.0.0.1:8080) and AGENT_TODOS_KEY from the environment.
# Prints nothing and always exits 0: the agent reads a hook's stdout as instructions, and a
# service that is down must never stop the agent (it costs at most the 5 s timeout).
source="${1:?usage: forward-hook.sh claude-code|codex|gemini-cli}"
url="${AGENT_TODOS_URL:-http://127.0.0.1:8080}/v1/ingest/$source"
if [ -n "${AGENT_TODOS_KEY:-}" ]; then
  set -- -H "Authorization: Bearer $AGENT_TODOS_KEY"
else
  set --
fi
curl -sS --max-time 5 -o /dev/null -H 'Content-Type: application/json' "$@" \
  --data-binary @- "$url" || true
exit 0

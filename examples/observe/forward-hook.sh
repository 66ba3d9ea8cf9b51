#!/bin/sh
# agent-todos: forward one agent hook input (stdin) to the service's ingest route.
#   forward-hook.sh claude-code | codex | gemini-cli
# Reads AGENT_TODOS_URL (default http://127.0.0.1:8080) and AGENT_TODOS_KEY from the environment.
# Says who and where the agent runs: X-Agent-User (AGENT_TODOS_USER, else the login name),
# X-Agent-Host (AGENT_TODOS_HOST, else the host name), and, when git is installed and the hook
# runs in a repository (agents run hooks in their working directory), X-Agent-Repo (the remote
# `origin`, else the first, without any user:token@ in its URL) and X-Agent-Branch.
# Prints nothing and always exits 0: the agent reads a hook's stdout as instructions, and a
# service that is down must never stop the agent (it costs at most the 5 s timeout).
#
#   forward-hook.sh codex --decide      (a PermissionRequest hook: docs/decisions.md)
# With --decide the service may hold the hook until a person answers from the dashboard, Slack
# or the API (DECISION_HOLD_SECONDS, default 20 s; at most AGENT_TODOS_DECIDE_TIMEOUT, default
# 30 s, here), and the answer is printed as the hook's output. No answer, an error or a service
# that is down prints nothing: the agent asks at its own prompt.
source="${1:?usage: forward-hook.sh claude-code|codex|gemini-cli [--decide]}"
url="${AGENT_TODOS_URL:-http://127.0.0.1:8080}/v1/ingest/$source"
decide=''
if [ "${2:-}" = "--decide" ]; then
  decide=1
  url="$url?decide=1"
fi

# one header line: control characters dropped (no header injection), nothing when empty
header() {
  value=$(printf '%s' "$2" | tr -d '\000-\037\177')
  if [ -n "$value" ]; then
    headers="$headers$1: $value
"
  fi
}
headers=''
user="${AGENT_TODOS_USER:-${USER:-$(id -un 2>/dev/null)}}"
host="${AGENT_TODOS_HOST:-$(hostname 2>/dev/null || uname -n 2>/dev/null)}"
repo=''
branch=''
if command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  remote=origin
  git remote get-url origin >/dev/null 2>&1 || remote=$(git remote 2>/dev/null | head -n 1)
  if [ -n "$remote" ]; then
    # scheme://user:token@host/... → scheme://host/...
    repo=$(git remote get-url "$remote" 2>/dev/null |
      sed 's#^\([A-Za-z][A-Za-z0-9+.-]*://\)[^/@]*@#\1#')
  fi
  branch=$(git symbolic-ref --quiet --short HEAD 2>/dev/null)
fi
header X-Agent-User "$user"
header X-Agent-Host "$host"
header X-Agent-Repo "$repo"
header X-Agent-Branch "$branch"

set --
if [ -n "${AGENT_TODOS_KEY:-}" ]; then
  set -- -H "Authorization: Bearer $AGENT_TODOS_KEY"
fi
# one -H per header line
while IFS= read -r line; do
  [ -n "$line" ] && set -- "$@" -H "$line"
done <<EOF
$headers
EOF
if [ -n "$decide" ]; then
  # the reply is printed only when it is a decision (2xx and a hookSpecificOutput)
  reply=$(curl -sS -f --max-time "${AGENT_TODOS_DECIDE_TIMEOUT:-30}" \
    -H 'Content-Type: application/json' "$@" --data-binary @- "$url" 2>/dev/null) || reply=''
  case "$reply" in
  *'"hookSpecificOutput"'*) printf '%s\n' "$reply" ;;
  esac
  exit 0
fi
curl -sS --max-time 5 -o /dev/null -H 'Content-Type: application/json' "$@" \
  --data-binary @- "$url" || true
exit 0

"""Forwards the messages of a Claude Agent SDK `query()` to agent-todos, in order, and yields each
one on unchanged:
    async for message in observed(query(prompt=prompt, options=options)): ...
Reads AGENT_TODOS_URL (default http://127.0.0.1:8080) and AGENT_TODOS_KEY; says whose agent it is
and where with X-Agent-User and X-Agent-Host. Standard library only.
"""
import asyncio, dataclasses, getpass, json, os, socket, urllib.parse, urllib.request

URL = os.environ.get("AGENT_TODOS_URL", "http://127.0.0.1:8080") + "/v1/ingest/claude-agent-sdk"


def _user():
    try:
        return os.environ.get("AGENT_TODOS_USER") or getpass.getuser()
    except (OSError, KeyError):  # no user name to be had (a container without one)
        return ""


def _send(message, session_id):
    # the SDK's dataclasses carry no wire type: the class name says it; UserMessage has no
    # session_id, so the session is named in the query
    body = json.dumps({"type": type(message).__name__, **dataclasses.asdict(message)}, default=str)
    headers = {
        "Content-Type": "application/json",
        "X-Agent-User": _user(),
        "X-Agent-Host": os.environ.get("AGENT_TODOS_HOST") or socket.gethostname(),
    }
    if os.environ.get("AGENT_TODOS_KEY"):
        headers["Authorization"] = "Bearer " + os.environ["AGENT_TODOS_KEY"]
    query = "?" + urllib.parse.urlencode({"session_id": "claude:" + session_id}) if session_id else ""
    try:
        urllib.request.urlopen(urllib.request.Request(URL + query, body.encode(), headers), timeout=5).read()
    except OSError:
        pass  # agent-todos being down never stops the agent


async def observed(messages):
    session_id = None
    async for message in messages:
        data = getattr(message, "data", None)
        session_id = getattr(message, "session_id", None) or (data or {}).get("session_id") or session_id
        await asyncio.to_thread(_send, message, session_id)
        yield message

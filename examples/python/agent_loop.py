#!/usr/bin/env python3
"""An agent loop that hands its todo tool to agent-todos, standard library only.

A scripted stand-in model plays the reference walkthrough of learn-claude-code's s03 lesson
("create a Python script with three functions, then run it"). Every model turn is reported to
the rounds API; the loop builds the Anthropic-style user message from the reply (tool_result
blocks, then the reminder text block when one is due) and prints the progress. It checks every
text the service returns and exits 1 on any mismatch, so CI runs it against the real server.

Usage:
    python3 examples/python/agent_loop.py [BASE_URL] [SESSION_ID]

BASE_URL defaults to $AGENT_TODOS_URL, then http://localhost:8080. Set $AGENT_TODOS_KEY when
the server has AUTH_KEYS.
"""

import json
import os
import sys
import urllib.error
import urllib.request
import uuid

BASE_URL = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("AGENT_TODOS_URL", "http://localhost:8080")
BASE_URL = BASE_URL.rstrip("/")
SESSION_ID = sys.argv[2] if len(sys.argv) > 2 else f"py-walk-{uuid.uuid4().hex[:12]}"
API_KEY = os.environ.get("AGENT_TODOS_KEY")

REMINDER = "<reminder>Update your todos.</reminder>"

# The reference tool definition (Anthropic format), byte for byte.
REFERENCE_TOOL = {
    "name": "todo",
    "description": "Update task list. Track progress on multi-step tasks.",
    "input_schema": {
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "string"},
                        "text": {"type": "string"},
                        "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]},
                    },
                    "required": ["id", "text", "status"],
                },
            }
        },
        "required": ["items"],
    },
}

STEPS = [
    "Create hello.py",
    "Write the greet function",
    "Write the add function",
    "Write the main function",
    "Run the script",
]
MARKERS = {"pending": "[ ]", "in_progress": "[>]", "completed": "[x]"}


class Mismatch(Exception):
    pass


def api(method, path, body=None):
    """One JSON request to the service; raises on any status but 2xx."""
    headers = {"Accept": "application/json"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if API_KEY:
        headers["Authorization"] = f"Bearer {API_KEY}"
    request = urllib.request.Request(BASE_URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        raise Mismatch(f"{method} {path} answered {error.code}: {error.read().decode()}") from None


def todo_call(call_id, statuses):
    items = [
        {"id": str(i + 1), "text": text, "status": status}
        for i, (text, status) in enumerate(zip(STEPS, statuses))
    ]
    return {"id": call_id, "name": "todo", "input": {"items": items}}


def other_call(call_id, name, tool_input):
    return {"id": call_id, "name": name, "input": tool_input}


def rendered(statuses):
    """The text the s03 tool returns for this list (seed-s03.md, render())."""
    lines = [
        f"{MARKERS[status]} #{i + 1}: {text}"
        for i, (text, status) in enumerate(zip(STEPS, statuses))
    ]
    done = sum(1 for status in statuses if status == "completed")
    return "\n".join(lines) + f"\n\n({done}/{len(statuses)} completed)"


P, W, D = "pending", "in_progress", "completed"

# The stand-in model: one list of tool calls per turn.
SCRIPT = [
    [todo_call("toolu_01", [P, P, P, P, P])],
    [todo_call("toolu_02", [W, P, P, P, P])],
    [other_call("toolu_03", "write_file", {"path": "hello.py", "content": "# hello\n"})],
    [todo_call("toolu_04", [D, W, P, P, P])],
    [other_call("toolu_05", "write_file", {"path": "hello.py", "content": "def greet(): ...\n"})],
    [other_call("toolu_06", "write_file", {"path": "hello.py", "content": "def add(a, b): ...\n"})],
    [other_call("toolu_07", "write_file", {"path": "hello.py", "content": "def main(): ...\n"})],
    [todo_call("toolu_08", [D, D, D, D, W])],
    [other_call("toolu_09", "bash", {"command": "python hello.py"})],
    [todo_call("toolu_10", [D, D, D, D, D])],
]

# What each turn must get back: the todo result text, the counter, and whether the reminder is due.
EXPECTED = [
    (rendered([P, P, P, P, P]), 0, False),
    (rendered([W, P, P, P, P]), 0, False),
    (None, 1, False),
    (rendered([D, W, P, P, P]), 0, False),
    (None, 1, False),
    (None, 2, False),
    (None, 3, True),
    (rendered([D, D, D, D, W]), 0, False),
    (None, 1, False),
    (rendered([D, D, D, D, D]), 0, False),
]


def run_local_tool(call):
    """The loop's own tools; the stand-in just reports success."""
    return f"ok: {call['name']} {json.dumps(call['input'], sort_keys=True)[:40]}"


def expect(what, actual, expected):
    if actual != expected:
        raise Mismatch(f"{what}:\n  expected {expected!r}\n  actual   {actual!r}")


def user_message(calls, reply):
    """The next user message: every tool_result in call order, then the notice and reminder blocks."""
    by_id = {result["tool_use_id"]: result for result in reply["results"]}
    content = []
    for call in calls:
        result = by_id.get(call["id"])
        if result is not None:
            block = {"type": "tool_result", "tool_use_id": call["id"], "content": result["content"]}
            if result["is_error"]:
                block["is_error"] = True
        else:
            block = {"type": "tool_result", "tool_use_id": call["id"], "content": run_local_tool(call)}
        content.append(block)
    if reply.get("notice"):
        content.append({"type": "text", "text": reply["notice"]["text"]})
    if reply.get("reminder"):
        content.append({"type": "text", "text": reply["reminder"]["text"]})
    return {"role": "user", "content": content}


def main():
    tools = api("GET", "/v1/tools?dialect=s03&format=anthropic")["tools"]
    expect("the s03 tool definition", tools, [REFERENCE_TOOL])
    print(f"session {SESSION_ID} on {BASE_URL}: tools {[tool['name'] for tool in tools]}")

    messages = [{"role": "user", "content": "create a Python script with three functions, then run it"}]
    for turn, (calls, (text, since, reminded)) in enumerate(zip(SCRIPT, EXPECTED), start=1):
        messages.append({"role": "assistant", "content": [{"type": "tool_use", **call} for call in calls]})
        reply = api("POST", f"/v1/sessions/{SESSION_ID}/rounds", {"dialect": "s03", "tool_calls": calls})
        message = user_message(calls, reply)
        messages.append(message)

        expect(f"turn {turn}: round", reply["round"], turn)
        expect(f"turn {turn}: rounds_since_todo", reply["rounds_since_todo"], since)
        todo_results = [result["content"] for result in reply["results"]]
        expect(f"turn {turn}: todo results", todo_results, [text] if text is not None else [])
        expect(f"turn {turn}: reminder", reply["reminder"], {"text": REMINDER} if reminded else None)
        kinds = [block["type"] for block in message["content"]]
        expected_kinds = ["tool_result"] * len(calls) + (["text"] if reminded else [])
        expect(f"turn {turn}: user message blocks", kinds, expected_kinds)
        if reminded:
            expect(f"turn {turn}: reminder block", message["content"][-1], {"type": "text", "text": REMINDER})

        progress = reply["progress"]
        tools_used = ", ".join(call["name"] for call in calls)
        done = f"{progress['completed']}/{progress['total']} completed ({progress['percent']}%)"
        line = f"turn {turn:2}: {tools_used:10} {done}"
        if reminded:
            line += "  + " + REMINDER
        print(line)

    view = api("GET", f"/v1/sessions/{SESSION_ID}")
    expect("final rendered list", view["rendered"], rendered([D] * 5))
    expect("final progress", view["progress"]["percent"], 100)
    print(view["rendered"])
    print(f"ok: {len(SCRIPT)} turns, {len(messages)} messages, every text as the reference")


if __name__ == "__main__":
    try:
        main()
    except Mismatch as error:
        print(f"MISMATCH {error}", file=sys.stderr)
        sys.exit(1)
    except (urllib.error.URLError, OSError) as error:
        print(f"cannot reach {BASE_URL}: {error}", file=sys.stderr)
        sys.exit(2)

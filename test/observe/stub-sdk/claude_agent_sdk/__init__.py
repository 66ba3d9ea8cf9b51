"""A stand-in for the Python `claude_agent_sdk` package, for the tests of
examples/observe/claude-agent-sdk/main.py: its messages are dataclasses named and shaped as the
SDK's (types.py), read from the JSON fixture named by STUB_SDK_FIXTURE, so the forwarder sees what
it sees under the real SDK (which needs a Python package index this machine cannot reach).
"""
import dataclasses, json, os
from typing import Any


@dataclasses.dataclass
class ClaudeAgentOptions:
    env: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class ToolUseBlock:
    id: str
    name: str
    input: dict


@dataclasses.dataclass
class ToolResultBlock:
    tool_use_id: str
    content: Any = None
    is_error: Any = None


@dataclasses.dataclass
class TextBlock:
    text: str


@dataclasses.dataclass
class AssistantMessage:
    content: list
    model: str
    parent_tool_use_id: Any = None
    error: Any = None
    usage: Any = None
    message_id: Any = None
    stop_reason: Any = None
    session_id: Any = None
    uuid: Any = None


@dataclasses.dataclass
class UserMessage:
    content: Any
    uuid: Any = None
    parent_tool_use_id: Any = None
    tool_use_result: Any = None
    origin: Any = None


@dataclasses.dataclass
class SystemMessage:
    subtype: str
    data: dict


@dataclasses.dataclass
class ResultMessage:
    subtype: str
    duration_ms: int
    duration_api_ms: int
    is_error: bool
    num_turns: int
    session_id: str
    stop_reason: Any = None
    total_cost_usd: Any = None
    usage: Any = None
    result: Any = None
    terminal_reason: Any = None
    errors: Any = None


def block(raw):
    if "tool_use_id" in raw:
        return ToolResultBlock(raw["tool_use_id"], raw.get("content"), raw.get("is_error"))
    if "name" in raw:
        return ToolUseBlock(raw["id"], raw["name"], raw["input"])
    return TextBlock(raw["text"])


def message(raw):
    kind = raw.pop("type")
    if kind == "SystemMessage":
        return SystemMessage(raw["subtype"], raw["data"])
    if kind == "AssistantMessage":
        return AssistantMessage([block(b) for b in raw["content"]], raw["model"], raw["parent_tool_use_id"], session_id=raw["session_id"], message_id=raw["message_id"])
    if kind == "UserMessage":
        content = raw["content"]
        return UserMessage([block(b) for b in content] if isinstance(content, list) else content, raw.get("uuid"), raw.get("parent_tool_use_id"), raw.get("tool_use_result"))
    fields = {f.name for f in dataclasses.fields(ResultMessage)}
    return ResultMessage(**{k: v for k, v in raw.items() if k in fields})


async def query(*, prompt, options=None):
    """Yields the fixture's messages, as the SDK's `query()` yields a run's."""
    assert isinstance(prompt, str) and prompt
    assert options is None or options.env.get("CLAUDE_CODE_ENABLE_TODO_TOOLS") == "1"
    with open(os.environ["STUB_SDK_FIXTURE"]) as fixture:
        for raw in json.load(fixture):
            yield message(raw)

import asyncio, sys
from claude_agent_sdk import ClaudeAgentOptions, query
from forward import observed


async def main(prompt):
    options = ClaudeAgentOptions(env={"CLAUDE_CODE_ENABLE_TODO_TOOLS": "1"})
    async for message in observed(query(prompt=prompt, options=options)):
        print(type(message).__name__)


asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else "Add a /health endpoint"))

/**
 * @module dialects/todo-examples
 * Example exchanges that Claude Code's TodoWrite prompt tells and LangChain's JS `write_todos`
 * description repeats word for word (each prompt words the answers and reasons around them its own
 * way): one home for the lines both natives send.
 */

/** The "Hello World" question and the answer's first line, of an example for not using the tool. */
export const HELLO_WORLD_ASKED = `User: How do I print 'Hello World' in Python?
Assistant: In Python, you can print "Hello World" with this simple code:`

/** The one-comment request and its handling, of an example for not using the tool. */
export const ADD_A_COMMENT = `User: Can you add a comment to the calculateTotal function to explain what it does?
Assistant: Sure, let me add a comment to the calculateTotal function to explain what it does.
* Uses the Edit tool to add a comment to the calculateTotal function *`

/**
 * Claude Code's traces beta times each permission check with a `claude_code.tool.blocked_on_user`
 * span (child of the `claude_code.tool` span that names the tool): its start is when the CLI
 * began to wait for a decision, its end when it had one, and its `decision` / `source` say which
 * and who. The span itself is not a log event, so decode.ts reads each into one record of its
 * own (named as the span, timed at its start, its end in `interval`), with its parent's attributes
 * so the record can name the tool. docs/otel.md "Waiting for approval".
 */

export const BLOCKED_ON_USER_SPAN = 'claude_code.tool.blocked_on_user';

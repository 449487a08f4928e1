/** One server-sent event as the stream framed it. */
export interface SseMessage {
  event: string;
  data: string;
  /** The `id:` field of this message, if it had one. */
  id: string | undefined;
}

/**
 * An incremental text/event-stream parser (the WHATWG framing: `field: value` lines, a blank line
 * dispatches, `:` starts a comment, `data` lines join with "\n"; CR, LF and CRLF all end a line).
 * Feed it decoded text as it arrives; it returns the messages completed by that text.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;
  private pendingCr = false;

  push(text: string): SseMessage[] {
    let input = text;
    if (this.pendingCr && input.startsWith('\n')) input = input.slice(1);
    this.pendingCr = false;
    this.buffer += input;
    const out: SseMessage[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of a CRLF split across chunks.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) this.pendingCr = true;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const message = this.line(line);
      if (message) out.push(message);
    }
    return out;
  }

  private line(line: string): SseMessage | null {
    if (line === '') {
      const message = this.data.length > 0 ? { event: this.event || 'message', data: this.data.join('\n'), id: this.id } : null;
      this.event = '';
      this.data = [];
      this.id = undefined;
      return message;
    }
    if (line.startsWith(':')) return null;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return null;
  }
}

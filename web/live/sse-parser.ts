/**
 * Server-sent events as the HTML standard parses them ("Interpreting an event stream"): text
 * in chunks, messages out. Lines end in CRLF, LF or CR; `data` lines join with LF; a blank line
 * dispatches; comments (`:`) and unknown fields are ignored; a message without `data` is not
 * dispatched. Pure, so it is tested without a network.
 */
export interface SseMessage {
  /** The `event` field, `message` when absent. */
  readonly event: string;
  readonly data: string;
  readonly id?: string;
}

export class SseParser {
  #buffer = '';
  #event = '';
  #data: string[] = [];
  #id: string | undefined;
  /** A chunk ended in CR: a LF starting the next one belongs to that line end. */
  #afterCr = false;

  /** Feeds one chunk of decoded text; returns the messages it completed. */
  push(chunk: string): SseMessage[] {
    let text = chunk;
    if (this.#afterCr && text.startsWith('\n')) text = text.slice(1);
    this.#afterCr = false;
    this.#buffer += text;
    const messages: SseMessage[] = [];
    for (;;) {
      const end = this.#buffer.search(/\r\n|\r|\n/);
      if (end === -1) break;
      const line = this.#buffer.slice(0, end);
      let next = end + 1;
      if (this.#buffer[end] === '\r') {
        if (end + 1 === this.#buffer.length) this.#afterCr = true;
        else if (this.#buffer[end + 1] === '\n') next = end + 2;
      }
      this.#buffer = this.#buffer.slice(next);
      const message = this.#line(line);
      if (message) messages.push(message);
    }
    return messages;
  }

  #line(line: string): SseMessage | undefined {
    if (line === '') return this.#dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.#event = value;
    else if (field === 'data') this.#data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.#id = value;
    return undefined;
  }

  #dispatch(): SseMessage | undefined {
    const data = this.#data;
    const event = this.#event || 'message';
    this.#data = [];
    this.#event = '';
    if (data.length === 0) return undefined;
    return { event, data: data.join('\n'), ...(this.#id !== undefined && { id: this.#id }) };
  }
}

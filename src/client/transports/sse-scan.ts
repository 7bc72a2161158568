/**
 * Reads the `data` of each message event out of an SSE stream as it passes, chunk by chunk,
 * by the rules of the HTML standard ("Interpreting an event stream", §9.2.6): lines end in
 * CRLF, LF or a bare CR; a blank line dispatches the event; `data` fields join with LF;
 * a line starting with a colon is a comment; a field without a colon has an empty value; one
 * space after the colon is dropped. Only events of type `message` (or none) count, as the
 * SDK's transport reads only those. It reads, it never changes the stream.
 */
export class SseScanner {
  private readonly decoder = new TextDecoder();
  private line = '';
  private data: string[] = [];
  private type = '';
  /** The last chunk ended in CR: an LF starting the next one belongs to that line ending. */
  private afterCr = false;
  private started = false;

  constructor(private readonly onData: (data: string) => void) {}

  /** Feeds one chunk; `onData` runs for each event it completes, before this returns. */
  push(chunk: Uint8Array): void {
    let text = this.decoder.decode(chunk, { stream: true });
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a leading BOM is no content
    }
    let from = 0;
    if (this.afterCr && text.startsWith('\n')) from = 1;
    this.afterCr = false;
    for (let i = from; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue;
      this.line += text.slice(from, i);
      this.endLine();
      if (c === 0x0d) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 0x0a) i++;
        } else this.afterCr = true;
      }
      from = i + 1;
    }
    this.line += text.slice(from);
  }

  private endLine(): void {
    const line = this.line;
    this.line = '';
    if (line === '') {
      if (this.data.length > 0 && (this.type === '' || this.type === 'message'))
        this.onData(this.data.join('\n'));
      this.data = [];
      this.type = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.type = value;
  }
}

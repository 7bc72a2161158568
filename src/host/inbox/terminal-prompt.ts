import { createInterface, type Interface } from 'node:readline';
import { Writable } from 'node:stream';
import { describeError } from '../../core/errors.js';
import { MASKED } from '../../policy/masking.js';
import { type ElicitationContent, type FormField, formFields } from './elicitation-form.js';
import { readFieldText } from './field-text.js';
import type { Inbox, InboxAction, InboxItem, InboxOutcome, ResolveOptions } from './inbox.js';

/**
 * The terminal front-end of the Inbox: presents pending items one at a time and answers them
 * from typed lines. An approval asks yes / always / no; an elicitation first asks whether to
 * answer at all, then each field in turn (title, description, numbered choices, default);
 * a URL elicitation shows the URL and asks for consent. An item answered elsewhere, expired or
 * withdrawn while on screen is dropped with a note, and the next one comes up.
 *
 * Secret fields are read without echo: on a TTY, readline's echo goes to a muted stream; on
 * any other stream nothing is echoed anyway. Answers never reach the output. Lines typed while
 * nothing is asked are discarded, so a stray "y" cannot approve the next item unseen. On a TTY
 * the input is in raw mode while attached: Ctrl-C or Ctrl-D (or the end of any input) cancels
 * the item on screen and detaches.
 */

export interface TerminalPromptOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream;
  /** Read secret fields without echo (default true). */
  readonly mask?: boolean;
}

interface Current {
  readonly id: string;
  readonly abort: AbortController;
  note?: string;
}

function noteFor(outcome: InboxOutcome): string {
  if (outcome.action === 'accept') return '(answered elsewhere)';
  switch (outcome.reason) {
    case 'timeout':
      return '(no answer in time: declined)';
    case 'aborted':
      return '(withdrawn by the caller)';
    case 'closed':
      return '(the inbox closed)';
    case 'user':
      return '(answered elsewhere)';
  }
}

function waitText(deadline: Date): string {
  const ms = Math.max(0, deadline.getTime() - Date.now());
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.ceil(ms / 1000)} s`;
}

class TerminalPrompt {
  private readonly rl: Interface;
  private readonly tty: boolean;
  private readonly mask: boolean;
  private readonly queue: string[] = [];
  private current: Current | undefined;
  private waiting: ((line: string | undefined) => void) | undefined;
  private muted = false;
  private rlClosed = false;
  private running = false;
  private detached = false;

  constructor(
    private readonly inbox: Inbox,
    private readonly options: TerminalPromptOptions,
  ) {
    this.tty = (options.input as { isTTY?: boolean }).isTTY === true;
    this.mask = options.mask ?? true;
    const out = options.output;
    // readline echoes through this stream; muting it hides what is typed into a secret field.
    const echo = new Writable({
      write: (chunk, _encoding, done) => {
        if (!this.muted) out.write(chunk);
        done();
      },
    });
    Object.defineProperty(echo, 'columns', { get: () => (out as { columns?: number }).columns });
    this.rl = createInterface({ input: options.input, output: echo, terminal: this.tty });
    this.rl.on('line', (line) => this.onLine(line));
    this.rl.on('close', () => this.onClose());
    inbox.on('added', this.onAdded);
    inbox.on('resolved', this.onResolved);
    for (const item of inbox.list()) this.queue.push(item.id);
    void this.run();
  }

  detach(): void {
    if (this.detached) return;
    this.detached = true;
    this.inbox.off('added', this.onAdded);
    this.inbox.off('resolved', this.onResolved);
    this.current?.abort.abort();
    this.rl.close();
  }

  private readonly onAdded = (item: InboxItem): void => {
    this.queue.push(item.id);
    void this.run();
  };

  private readonly onResolved = (item: InboxItem, outcome: InboxOutcome): void => {
    const current = this.current;
    if (current?.id !== item.id || current.abort.signal.aborted) return;
    current.note = noteFor(outcome);
    current.abort.abort();
  };

  private onLine(line: string): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(line);
  }

  private onClose(): void {
    this.rlClosed = true;
    if (this.detached) return;
    // The person left (Ctrl-C, Ctrl-D, end of input): the item on screen is cancelled, the rest wait.
    const current = this.current;
    this.detach();
    if (current) this.inbox.resolve(current.id, 'cancel');
  }

  /** Answers the item on screen; it is no longer "current", so its `resolved` event adds no note. */
  private answer(
    id: string,
    action: InboxAction,
    content?: ElicitationContent,
    options?: ResolveOptions,
  ): boolean {
    this.current = undefined;
    return this.inbox.resolve(id, action, content, options);
  }

  private write(text: string): void {
    this.options.output.write(text);
  }

  /** One typed line, or undefined when the item ends first or the prompt detaches. */
  private readLine(prompt: string, signal: AbortSignal, secret = false): Promise<string | undefined> {
    if (signal.aborted || this.detached) return Promise.resolve(undefined);
    const hide = secret && this.mask;
    return new Promise((resolve) => {
      const finish = (line: string | undefined) => {
        signal.removeEventListener('abort', onAbort);
        this.waiting = undefined;
        if (this.muted) this.muted = false;
        // Off a TTY the answer is not echoed, so end the prompt's line ourselves; on a TTY
        // readline did, unless it was muted.
        if (!this.tty || hide || line === undefined) this.write('\n');
        resolve(line);
      };
      const onAbort = () => {
        // Drop anything half-typed so it cannot leak into the next prompt.
        if (this.tty && !this.rlClosed) this.rl.write(null, { ctrl: true, name: 'u' });
        finish(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = finish;
      if (hide) {
        this.write(prompt);
        this.muted = true;
        this.rl.setPrompt('');
      } else {
        this.rl.setPrompt(prompt);
      }
      this.rl.prompt();
    });
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let id = this.queue.shift(); id !== undefined && !this.detached; id = this.queue.shift()) {
        const item = this.inbox.get(id);
        if (item) await this.present(item);
      }
    } finally {
      this.running = false;
    }
  }

  private async present(item: InboxItem): Promise<void> {
    const current: Current = { id: item.id, abort: new AbortController() };
    this.current = current;
    try {
      if (item.kind === 'approval') await this.askApproval(item, current.abort.signal);
      else if (item.mode === 'url') await this.askUrl(item, current.abort.signal);
      else await this.askForm(item, current.abort.signal);
    } catch (error) {
      // The item stays in the Inbox for another front-end or its deadline.
      this.write(`Could not answer it here: ${describeError(error)}\n`);
    } finally {
      if (current.note) this.write(`${current.note}\n`);
      this.current = undefined;
    }
  }

  /** Asks until one of `answers` (keys of the map) is typed; undefined when the item ends. */
  private async choose<T>(
    prompt: string,
    answers: Record<string, T>,
    signal: AbortSignal,
  ): Promise<T | undefined> {
    for (;;) {
      const line = await this.readLine(prompt, signal);
      if (line === undefined) return undefined;
      const key = line.trim().toLowerCase();
      if (Object.hasOwn(answers, key)) return answers[key];
      this.write(`Answer one of: ${Object.keys(answers).filter(Boolean).join(', ')}.\n`);
    }
  }

  private async askApproval(item: InboxItem, signal: AbortSignal): Promise<void> {
    this.write(
      `\nAllow ${item.server}.${item.tool ?? '?'}? (declined in ${waitText(item.deadline)} without an answer)\n`,
    );
    if (item.reason) this.write(`  reason: ${item.reason}\n`);
    this.write(`  args:   ${item.preview}\n`);
    const yes = { always: false };
    const always = { always: true };
    const answer = await this.choose(
      '[y]es / [a]lways / [N]o: ',
      { y: yes, yes, a: always, always, n: null, no: null, '': null },
      signal,
    );
    if (answer === undefined) return;
    if (answer === null) this.answer(item.id, 'decline');
    else this.answer(item.id, 'accept', undefined, answer);
  }

  private async askConsent(prompt: string, signal: AbortSignal) {
    return this.choose(
      prompt,
      { y: 'accept', yes: 'accept', n: 'decline', no: 'decline', c: 'cancel', cancel: 'cancel' } as const,
      signal,
    );
  }

  private async askUrl(item: InboxItem, signal: AbortSignal): Promise<void> {
    this.write(`\n${item.server} asks you to open a page: ${item.preview}\n  url: ${item.url ?? ''}\n`);
    const action = await this.askConsent('Open it? [y]es / [n]o / [c]ancel: ', signal);
    if (action === undefined) return;
    if (this.answer(item.id, action) && action === 'accept') {
      this.write(`Open ${item.url ?? ''} in your browser.\n`);
    }
  }

  private async askForm(item: InboxItem, signal: AbortSignal): Promise<void> {
    this.write(`\n${item.server} asks: ${item.preview}\n`);
    const action = await this.askConsent('Answer it? [y]es / [n]o / [c]ancel: ', signal);
    if (action === undefined) return;
    if (action !== 'accept') {
      this.answer(item.id, action);
      return;
    }
    const content: ElicitationContent = {};
    for (const field of formFields(item.requestedSchema)) {
      const value = await this.askField(field, signal);
      if (value === undefined) return;
      if (value !== null) content[field.name] = value;
    }
    this.answer(item.id, 'accept', content);
  }

  /** A field's value, null when skipped, undefined when the item ended. */
  private async askField(
    field: FormField,
    signal: AbortSignal,
  ): Promise<ElicitationContent[string] | null | undefined> {
    if (field.description) this.write(`  ${field.title} — ${field.description}\n`);
    if (field.choices) {
      this.write(`    ${field.choices.map((c, i) => `${i + 1}) ${c.title}`).join('  ')}\n`);
      if (field.kind === 'choices') this.write('    (numbers or values, separated by commas)\n');
    }
    const hints = [
      field.kind === 'boolean' ? 'y/n' : '',
      field.default === undefined ? '' : `default: ${field.secret ? MASKED : String(field.default)}`,
      field.required ? '' : 'optional',
      field.secret && this.mask ? 'hidden' : '',
    ].filter(Boolean);
    const prompt = `  ${field.title}${hints.length > 0 ? ` [${hints.join(', ')}]` : ''}: `;
    for (;;) {
      const line = await this.readLine(prompt, signal, field.secret);
      if (line === undefined) return undefined;
      const reading = readFieldText(field, line);
      if (reading.kind === 'value') return reading.value;
      if (reading.kind === 'skip') return null;
      this.write(`  ${field.title} ${reading.problem}.\n`);
    }
  }
}

/**
 * Attaches the terminal front-end to `inbox`: every pending and every new item is presented on
 * `output` and answered from lines of `input`, one at a time. Returns a function that detaches
 * it (the item on screen stays pending in the Inbox).
 */
export function attachTerminalPrompt(inbox: Inbox, options: TerminalPromptOptions): () => void {
  const prompt = new TerminalPrompt(inbox, options);
  return () => prompt.detach();
}

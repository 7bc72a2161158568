import type { TerminalLike } from './style.js';

/**
 * A one-line activity indicator on stderr while the CLI waits (servers connecting, a call
 * running). It draws only on a TTY: in a pipe, a log file or `--json`/`--quiet` mode it is
 * silent, so captured stderr holds messages, not animation frames. The line is erased on
 * `stop()`, leaving the terminal as it was.
 *
 * ```ts
 * const spinner = startSpinner('connecting fs, gh', { stream: process.stderr });
 * spinner.update('connecting gh');
 * spinner.stop();
 * ```
 */
export interface Spinner {
  /** Replaces the text shown next to the spinner. */
  update(text: string): void;
  /** Erases the line and stops; later calls do nothing. */
  stop(): void;
}

export interface SpinnerOptions {
  /** Where to draw (stderr). */
  readonly stream: TerminalLike & { write(chunk: string): unknown };
  /** Draw at all; default: when `stream` is a TTY. */
  readonly enabled?: boolean;
  /** Time between frames; default 80 ms. */
  readonly intervalMs?: number;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** Carriage return, then erase to the end of the line. */
const CLEAR = '\r\u001b[K';

const SILENT: Spinner = { update: () => undefined, stop: () => undefined };

/** Starts drawing `text` with a spinner; returns a silent spinner when drawing is off. */
export function startSpinner(text: string, options: SpinnerOptions): Spinner {
  const enabled = options.enabled ?? options.stream.isTTY === true;
  if (!enabled) return SILENT;
  const { stream } = options;
  let frame = 0;
  let current = text;
  let stopped = false;
  const draw = () => {
    // A pseudo-terminal may report 0 columns: take 80 then.
    const width = (stream.columns || 80) - 3;
    const shown = current.length > width ? `${current.slice(0, Math.max(0, width - 1))}…` : current;
    stream.write(`${CLEAR}${FRAMES[frame % FRAMES.length]} ${shown}`);
    frame++;
  };
  draw();
  // unref'd: a forgotten spinner never keeps the process alive.
  const timer = setInterval(draw, options.intervalMs ?? 80);
  timer.unref();
  return {
    update(next) {
      if (stopped) return;
      current = next;
      draw();
    },
    stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      stream.write(CLEAR);
    },
  };
}

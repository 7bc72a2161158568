import { createServer } from 'node:net';
import type { CliContext, ExitCode } from './cli-context.js';
import { EXIT } from './cli-context.js';

/**
 * What `serve` and `start` say when their port cannot be opened: that it is taken (or not this
 * user's to open) and what to do, on stderr or as `{ error }` with --json, exit 3 — instead of
 * Node's EADDRINUSE stack.
 */

/** Where the gateway tried to listen, and how the person would pick another port. */
export interface ListenPlace {
  readonly verb: 'serve' | 'start';
  readonly host: string;
  readonly port: number;
  /** The command line that takes any free port, e.g. `npm start -- --port 0`. */
  readonly anyPort: string;
}

/** Binds the port for a moment: undefined when it is free, else the error that binding gave. */
export function probePort(host: string, port: number): Promise<unknown> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', resolve);
    probe.listen(port, host, () => probe.close(() => resolve(undefined)));
  });
}

/** The message for a listen error, or undefined when it is not one about the port. Pure. */
export function listenProblemText(error: unknown, place: ListenPlace): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  if (code === 'EADDRINUSE')
    return (
      `Port ${place.port} on ${place.host} is already in use (another Switchboard?). Stop that process, or ` +
      `pick another port: "${place.anyPort}" takes any free one.`
    );
  if (code === 'EACCES')
    return `Port ${place.port} may not be opened by this user. Use a port above 1023, or "--port 0" for any free one.`;
  if (code === 'EADDRNOTAVAIL')
    return `${place.host} is not an address of this machine. Give --host one of its addresses, or 127.0.0.1.`;
  return undefined;
}

/** Says why the port could not be opened and what to do (exit 3); rethrows anything else. */
export function reportListenProblem(ctx: CliContext, place: ListenPlace, error: unknown): ExitCode {
  const message = listenProblemText(error, place);
  if (message === undefined) throw error;
  if (ctx.json) ctx.out(JSON.stringify({ error: { code: 'PORT_UNAVAILABLE', message } }));
  else ctx.err(`switchboard ${place.verb}: ${message}`);
  return EXIT.connection;
}

import { lookup } from 'node:dns/promises';
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { describeError } from '../../core/errors.js';
import { interpolate } from '../../core/interpolate.js';
import type { ServerConfig } from '../../core/server-config.js';
import { commandCandidates } from './command-lookup.js';
import type { DoctorStep } from './report.js';
import { variableUses } from './variables.js';

/**
 * The checks `doctor` makes before it connects, each a step of the report: the variables an
 * entry refers to are set; a local server's working directory exists and its command is an
 * executable on PATH; a remote server's URL parses and its host name resolves.
 */

/** What the checks read: the environment and the directory servers start in. */
export interface PreflightContext {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

/** Every `${VAR}` of the entry set (or defaulted); fails naming each one that is not. */
export function variablesStep(config: ServerConfig, env: PreflightContext['env']): DoctorStep {
  const uses = variableUses(config, env);
  if (uses.length === 0) return { step: 'variables', status: 'ok', detail: 'no ${VAR} references' };
  const missing = uses.filter((u) => !u.set && !u.hasDefault);
  if (missing.length === 0) {
    const names = [...new Set(uses.map((u) => `${u.variable}${u.set ? '' : ' (default)'}`))];
    return { step: 'variables', status: 'ok', detail: `set: ${names.join(', ')}` };
  }
  const names = [...new Set(missing.map((u) => u.variable))];
  return {
    step: 'variables',
    status: 'fail',
    detail: missing.map((u) => `${u.variable} is not set (${u.field})`).join('; '),
    fix: `Set ${names.join(', ')} in the environment Switchboard runs in, or give a default: \${${names[0]}:-value}.`,
  };
}

/** A local server: its `cwd` (if any) is a directory and its command an executable file. */
export async function commandSteps(config: ServerConfig, options: PreflightContext): Promise<DoctorStep[]> {
  const t = config.transport;
  if (t.kind !== 'stdio') return [];
  const at = (field: string) => ({ server: config.name, field });
  const command = interpolate(t.command, options.env, at('command'));
  const cwd =
    t.cwd === undefined ? options.cwd : resolve(options.cwd, interpolate(t.cwd, options.env, at('cwd')));
  const steps: DoctorStep[] = [];
  if (t.cwd !== undefined) {
    const isDir = await stat(cwd).then(
      (s) => s.isDirectory(),
      () => false,
    );
    steps.push(
      isDir
        ? { step: 'cwd', status: 'ok', detail: cwd }
        : {
            step: 'cwd',
            status: 'fail',
            detail: `${cwd} is not a directory`,
            fix: `Create ${cwd}, or correct "cwd" of "${config.name}".`,
          },
    );
  }
  // The server's own PATH if its entry sets one, else the one it inherits.
  const path =
    t.env.PATH === undefined ? options.env.PATH : interpolate(t.env.PATH, options.env, at('env.PATH'));
  const candidates = commandCandidates(command, { ...(path !== undefined && { path }), cwd });
  let found: string | undefined;
  for (const file of candidates) {
    if (await isExecutable(file)) {
      found = file;
      break;
    }
  }
  steps.push(
    found
      ? { step: 'command', status: 'ok', detail: found === command ? found : `${command} → ${found}` }
      : {
          step: 'command',
          status: 'fail',
          detail:
            candidates.length === 1
              ? `${candidates[0]} is not an executable file`
              : `"${command}" is not on PATH`,
          fix: `Install "${command}", or put its full path in "command" of "${config.name}".`,
        },
  );
  return steps;
}

async function isExecutable(file: string): Promise<boolean> {
  const isFile = await stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
  if (!isFile) return false;
  if (process.platform === 'win32') return true;
  return access(file, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** A remote server: its URL parses and its host name resolves. */
export async function urlSteps(config: ServerConfig, options: PreflightContext): Promise<DoctorStep[]> {
  const t = config.transport;
  if (t.kind === 'stdio') return [];
  const text = interpolate(t.url, options.env, { server: config.name, field: 'url' });
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [
      {
        step: 'url',
        status: 'fail',
        detail: `"${text}" is not a URL`,
        fix: `Write "url" of "${config.name}" as https://host/path.`,
      },
    ];
  }
  // Origin and path only: a query may carry a key.
  const shown = `${url.origin}${url.pathname}`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0)
    return [
      { step: 'url', status: 'ok', detail: shown },
      { step: 'dns', status: 'ok', detail: 'an IP address' },
    ];
  const started = performance.now();
  try {
    const addresses = await lookup(host, { all: true });
    return [
      { step: 'url', status: 'ok', detail: shown },
      {
        step: 'dns',
        status: 'ok',
        detail: `${host} → ${addresses.map((a) => a.address).join(', ')}`,
        ms: performance.now() - started,
      },
    ];
  } catch (error) {
    return [
      { step: 'url', status: 'ok', detail: shown },
      {
        step: 'dns',
        status: 'fail',
        detail: `${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? describeError(error)})`,
        ms: performance.now() - started,
        fix: `Check the host name in "url" of "${config.name}", and the network or VPN it needs.`,
      },
    ];
  }
}

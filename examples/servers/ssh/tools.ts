/**
 * The SSH server's MCP tools, registered on an `McpServer`. Each call runs through `respond`,
 * which reads this round's elicitation answers, turns a question the call needs answered into
 * an input request, and an `SshError` into an error result that names its code.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { AliasSchema, checkAliasName } from './aliases.js';
import type { ExecResult } from './connection.js';
import { registerDiagnosticTools } from './diagnostic-tools.js';
import { SshError } from './errors.js';
import { registerFsTools } from './fs-tools.js';
import { checkRequest, runCommand } from './run-command.js';
import type { Sessions } from './sessions.js';
import { respond, Target, text } from './tool-kit.js';
import { download, type TransferReport, upload } from './transfer.js';

function describeExec(result: ExecResult): string {
  const lines = [
    result.timedOut
      ? 'Timed out: the command was killed.'
      : `Exit status: ${result.exitCode ?? `killed by ${result.signal}`}`,
  ];
  const part = (name: string, body: string, dropped: number) => {
    if (body === '' && dropped === 0) return;
    lines.push(`--- ${name} ---`, body.replace(/\n$/, ''));
    if (dropped > 0) lines.push(`[${dropped} more bytes of ${name} not kept]`);
  };
  part('stdout', result.stdout, result.stdoutDropped);
  part('stderr', result.stderr, result.stderrDropped);
  return lines.join('\n');
}

function describeTransfer(verb: string, report: TransferReport): string {
  const skipped =
    report.skipped.length > 0
      ? ` Skipped (symlinks, special or unsafe names): ${report.skipped.join(', ')}.`
      : '';
  return `${verb} ${report.files} file(s), ${report.directories} folder(s), ${report.bytes} bytes to ${report.destination}.${skipped}`;
}

/** Registers every tool on `server`, all sharing `sessions`. */
export function registerSshTools(server: McpServer, sessions: Sessions): void {
  const { settings } = sessions;
  registerFsTools(server, sessions);
  registerDiagnosticTools(server, sessions);

  server.registerTool(
    'list_aliases',
    {
      title: 'List SSH aliases',
      description: 'The saved SSH targets (no secrets) and which have a pooled connection now.',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (_args, ctx) =>
      respond(ctx, async () => {
        const aliases = await sessions.aliases.all();
        const open = new Set(sessions.pool.list().map((c) => c.key));
        const rows = Object.entries(aliases).map(([name, a]) => ({
          name,
          ...a,
          connected: open.has(`${a.user}@${a.port === 22 ? a.host : `[${a.host}]:${a.port}`}`),
        }));
        const lines = rows.map(
          (r) =>
            `${r.name}: ${r.user}@${r.host}:${r.port} auth=${r.auth} sudo=${r.sudo.method}${r.connected ? ' (connected)' : ''}${r.description ? ` — ${r.description}` : ''}`,
        );
        return text(lines.length > 0 ? lines.join('\n') : 'No aliases yet; add one with add_alias.', {
          aliases: rows,
        });
      }),
  );

  server.registerTool(
    'add_alias',
    {
      title: 'Add an SSH alias',
      description:
        'Saves (or replaces) a named SSH target. No password is ever stored: password logins and sudo passwords are asked for when needed. ' +
        'sudo_method: "prompt" (default, asks for the password), "nopasswd" (only if the user has a NOPASSWD sudo rule), "none" (sudo off).',
      inputSchema: z.object({
        name: z.string().describe('letters, digits, ".", "_", "-"'),
        host: z.string(),
        port: z.number().int().min(1).max(65_535).optional(),
        user: z.string(),
        auth: z.enum(['key', 'password']).optional(),
        key_path: z.string().optional(),
        sudo_method: z.enum(['nopasswd', 'prompt', 'none']).optional(),
        accept_new_host_key: z
          .boolean()
          .optional()
          .describe('Trust and record the host key on first connection without asking.'),
        description: z.string().optional(),
      }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ name, sudo_method, ...fields }, ctx) =>
      respond(ctx, async () => {
        checkAliasName(name);
        const parsed = AliasSchema.safeParse({
          ...fields,
          ...(sudo_method && { sudo: { method: sudo_method } }),
        });
        if (!parsed.success) {
          const issue = parsed.error.issues[0];
          throw new SshError(
            'INVALID_ARGUMENT',
            `${issue?.path.join('.')}: ${issue?.message}; fix it and call again.`,
          );
        }
        await sessions.aliases.put(name, parsed.data);
        const a = parsed.data;
        return text(
          `Saved alias ${name}: ${a.user}@${a.host}:${a.port}, auth ${a.auth}, sudo ${a.sudo.method}.`,
        );
      }),
  );

  server.registerTool(
    'remove_alias',
    {
      title: 'Remove an SSH alias',
      description: 'Deletes a saved SSH target and closes its pooled connection.',
      inputSchema: z.object({ name: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ name }, ctx) =>
      respond(ctx, async () => {
        const target = await sessions.target(name).catch(() => undefined);
        const removed = await sessions.aliases.remove(checkAliasName(name));
        if (target !== undefined) sessions.pool.close(target.key);
        return text(removed ? `Removed alias ${name}.` : `There was no alias ${name}.`);
      }),
  );

  server.registerTool(
    'connect',
    {
      title: 'Connect over SSH',
      description:
        'Opens (or reuses) the connection to an alias or user@host[:port]: checks the host key against known_hosts (asking you on first use) and logs in. Other tools connect on their own; this one checks that a target works.',
      inputSchema: z.object({ alias: Target }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ alias }, ctx) =>
      respond(ctx, async (answers) => {
        const target = await sessions.target(alias);
        await sessions.connection(target, answers);
        return text(
          `Connected to ${target.label}; the connection is kept for ${settings.poolTtlMs / 1000} s after its last use.`,
        );
      }),
  );

  server.registerTool(
    'exec',
    {
      title: 'Run a command over SSH',
      description:
        `Runs a shell command on the host. sudo=true runs it as sudo_user (default root) in the alias's sudo mode. ` +
        `Output: stdout and stderr, each kept up to ${settings.outputMaxBytes} bytes; time limit timeout_seconds (default ${settings.execTimeoutMs / 1000}, at most ${settings.execTimeoutMaxMs / 1000}).`,
      inputSchema: z.object({
        alias: Target,
        command: z.string().min(1),
        sudo: z.boolean().optional(),
        sudo_user: z.string().optional(),
        stdin: z.string().optional(),
        timeout_seconds: z.number().int().min(1).optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ alias, command, sudo, sudo_user, stdin, timeout_seconds }, ctx) =>
      respond(ctx, async (answers) => {
        const request = {
          command,
          sudo: sudo ?? false,
          sudoUser: sudo_user ?? 'root',
          stdin,
          timeoutMs: (timeout_seconds ?? settings.execTimeoutMs / 1000) * 1000,
        };
        checkRequest(request, sessions);
        const target = await sessions.target(alias);
        const connection = await sessions.connection(target, answers);
        const result = await runCommand(sessions, target, connection, request, answers);
        return {
          ...text(describeExec(result), {
            exit_code: result.exitCode,
            signal: result.signal,
            timed_out: result.timedOut,
            stdout: result.stdout,
            stderr: result.stderr,
            stdout_dropped_bytes: result.stdoutDropped,
            stderr_dropped_bytes: result.stderrDropped,
          }),
          ...(result.timedOut && { isError: true }),
        };
      }),
  );

  server.registerTool(
    'upload',
    {
      title: 'Upload over SFTP',
      description:
        'Copies a local file or folder (inside the local root) to the host, as the login user. A remote_path ending in "/" or naming an existing directory receives it inside, under its own name; otherwise remote_path is the exact destination. Missing parent folders are created.',
      inputSchema: z.object({ alias: Target, local_path: z.string().min(1), remote_path: z.string().min(1) }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ alias, local_path, remote_path }, ctx) =>
      respond(ctx, async (answers) => {
        const target = await sessions.target(alias);
        const report = await upload(
          await sessions.connection(target, answers),
          settings,
          local_path,
          remote_path,
        );
        return text(describeTransfer('Uploaded', report), { ...report });
      }),
  );

  server.registerTool(
    'download',
    {
      title: 'Download over SFTP',
      description:
        'Copies a remote file or folder to the local root, as the login user. A local_path ending in "/" or naming an existing folder receives it inside, under its own name; otherwise local_path is the exact destination. Missing parent folders are created.',
      inputSchema: z.object({ alias: Target, remote_path: z.string().min(1), local_path: z.string().min(1) }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ alias, remote_path, local_path }, ctx) =>
      respond(ctx, async (answers) => {
        const target = await sessions.target(alias);
        const report = await download(
          await sessions.connection(target, answers),
          settings,
          remote_path,
          local_path,
        );
        return text(describeTransfer('Downloaded', report), { ...report });
      }),
  );

  server.registerTool(
    'disconnect',
    {
      title: 'Disconnect',
      description:
        'Closes the pooled connection of an alias or user@host[:port] (all of them when none is named) and forgets its remembered passwords.',
      inputSchema: z.object({ alias: Target.optional() }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ alias }, ctx) =>
      respond(ctx, async () => {
        if (alias === undefined) {
          const closed = sessions.pool.closeAll();
          sessions.loginSecrets.clear();
          sessions.sudoSecrets.clear();
          return text(closed.length > 0 ? `Closed ${closed.join(', ')}.` : 'No connection was open.');
        }
        const target = await sessions.target(alias);
        const closed = sessions.pool.close(target.key);
        sessions.loginSecrets.drop(`password ${target.key}`);
        sessions.sudoSecrets.drop(`sudo ${target.key}`);
        return text(closed ? `Closed ${target.label}.` : `${target.label} had no open connection.`);
      }),
  );
}

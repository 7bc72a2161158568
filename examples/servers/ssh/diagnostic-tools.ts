/**
 * The diagnostics: `sysinfo` (what a host is and how it is doing) and `systemd` (units: status,
 * list, journal, and start/stop/restart/reload/enable/disable through sudo).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { SshError } from './errors.js';
import { runCommand } from './run-command.js';
import type { Sessions } from './sessions.js';
import { describeSysinfo, parseSysinfo, SYSINFO_SCRIPT } from './sysinfo.js';
import { runSystemd } from './systemd.js';
import { PRIORITIES, SYSTEMD_ACTIONS, UNIT_STATES, UNIT_TYPES } from './systemd-commands.js';
import { respond, Target, text } from './tool-kit.js';

const SYSINFO_TIMEOUT_MS = 30_000;
const MAX_JOURNAL_LINES = 2_000;

/** Registers `sysinfo` and `systemd`. */
export function registerDiagnosticTools(server: McpServer, sessions: Sessions): void {
  const { settings } = sessions;

  server.registerTool(
    'sysinfo',
    {
      title: 'Host overview',
      description:
        'Host name, OS, kernel, uptime, load, CPUs, memory and disks of the host, from standard commands run as the login user (uname, /etc/os-release, /proc, df). Parts a host does not report are named.',
      inputSchema: z.object({ alias: Target }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ alias }, ctx) =>
      respond(ctx, async (answers) => {
        const target = await sessions.target(alias);
        const connection = await sessions.connection(target, answers);
        const result = await runCommand(
          sessions,
          target,
          connection,
          {
            command: SYSINFO_SCRIPT,
            sudo: false,
            sudoUser: 'root',
            stdin: undefined,
            timeoutMs: SYSINFO_TIMEOUT_MS,
          },
          answers,
        );
        if (result.timedOut)
          throw new SshError(
            'TIMEOUT',
            `sysinfo's commands did not finish in ${SYSINFO_TIMEOUT_MS / 1000} s on ${target.label}.`,
          );
        const info = parseSysinfo(result.stdout);
        return text(describeSysinfo(info), { ...info });
      }),
  );

  server.registerTool(
    'systemd',
    {
      title: 'systemd units',
      description:
        'systemd on the host. action "status" (a unit\'s state and its last journal lines), "list" (units; filter by type, state, pattern such as "nginx*"), "journal" (a unit\'s last lines; since, priority), ' +
        'or "start", "stop", "restart", "reload", "enable", "disable" — these run through sudo in the alias\'s sudo mode. sudo=true reads status/journal as root. Unit names are checked: systemd\'s characters only.',
      inputSchema: z.object({
        alias: Target,
        action: z.enum(SYSTEMD_ACTIONS),
        unit: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe('e.g. "nginx.service"; needed by every action but list.'),
        pattern: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe('list: a unit glob such as "nginx*" or "*.timer".'),
        type: z.enum(UNIT_TYPES).optional().describe('list: unit type (default service).'),
        state: z.enum(UNIT_STATES).optional().describe('list: only units in this state.'),
        lines: z
          .number()
          .int()
          .min(1)
          .max(MAX_JOURNAL_LINES)
          .optional()
          .describe('journal: how many lines (default 100).'),
        since: z.string().max(64).optional().describe('journal: e.g. "2024-05-01 10:00", "today", "-1h".'),
        priority: z.enum(PRIORITIES).optional().describe('journal: this priority and more urgent ones.'),
        sudo: z.boolean().optional(),
        timeout_seconds: z.number().int().min(1).optional(),
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    (args, ctx) =>
      respond(ctx, async (answers) => {
        const timeoutMs = (args.timeout_seconds ?? settings.execTimeoutMs / 1000) * 1000;
        if (timeoutMs > settings.execTimeoutMaxMs)
          throw new SshError('LIMIT', `timeout_seconds may be at most ${settings.execTimeoutMaxMs / 1000}.`);
        const target = await sessions.target(args.alias);
        const connection = await sessions.connection(target, answers);
        const view = await runSystemd(
          sessions,
          target,
          connection,
          {
            action: args.action,
            unit: args.unit,
            pattern: args.pattern,
            type: args.type ?? 'service',
            state: args.state,
            lines: args.lines ?? 100,
            since: args.since,
            priority: args.priority,
            sudo: args.sudo ?? false,
            timeoutMs,
          },
          answers,
        );
        return text(view.text, view.structured);
      }),
  );
}

import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { findServer, networkFor, openSetup } from './configured-servers.js';
import { openCredentials } from './credential-store.js';
import { closingLines, type DoctorStep, reportRows, verdict } from './doctor/report.js';
import { runDoctor } from './doctor/run-doctor.js';
import { startSpinner } from './output/spinner.js';
import { printable, styleFor } from './output/style.js';
import { renderTable } from './output/table.js';

/**
 * `switchboard doctor <server>`: checks one server from its entry to a live handshake and
 * says what to fix (doctor/run-doctor.ts). Only that server is started. Exit 0 when it is
 * usable (warnings included), 3 when it cannot be reached or needs a login.
 */
export const DOCTOR_USAGE = `usage: switchboard doctor <server> [--timeout SECONDS]
  Checks a server step by step: its entry, the \${VAR}s it uses, its command on PATH or its
  URL and host name, then one connect with timings (spawn, handshake and protocol version,
  capabilities, tools/resources/prompts) and its login state; ends with what to fix.
  Exits 0 when the server is usable, 3 when it cannot be reached or needs a login.`;

export async function doctorCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, { timeout: { type: 'string' } });
  const name = positionals[0];
  if (name === undefined || positionals.length > 1)
    throw new UsageError('doctor takes exactly one server name.');
  const timeoutS = values.timeout === undefined ? undefined : Number(values.timeout);
  if (timeoutS !== undefined && !(timeoutS > 0))
    throw new UsageError(`--timeout takes a number of seconds, not "${values.timeout}".`);
  const view = await openSetup(ctx);
  let target: ReturnType<typeof findServer>;
  try {
    target = findServer(view, name);
  } finally {
    await view.close();
  }
  const network = networkFor(view, target);
  const live = !ctx.json && !ctx.quiet;
  const spinner = startSpinner(`checking ${name}`, {
    stream: process.stderr,
    enabled: live && process.stderr.isTTY === true,
  });
  const onStep = (step: DoctorStep) => spinner.update(`checking ${name}: ${step.step} ${step.status}`);
  let report: Awaited<ReturnType<typeof runDoctor>>;
  const { credentials, close } = await openCredentials(ctx);
  try {
    const checked = target.config
      ? { config: target.config, enabled: target.enabled, source: target.source }
      : { name: target.name, invalid: target.invalid!, enabled: target.enabled, source: target.source };
    report = await runDoctor(checked, {
      env: ctx.env,
      dataDir: ctx.dataDir,
      credentials,
      cwd: ctx.projectDir,
      onStep,
      ...(network && { network }),
      ...(timeoutS !== undefined && { connectTimeoutMs: timeoutS * 1000 }),
    });
  } finally {
    spinner.stop();
    await close();
  }
  const { healthy, fixes } = verdict(report);
  if (ctx.json) {
    ctx.out(JSON.stringify({ ...report, healthy, fixes }));
  } else {
    const style = styleFor(process.stdout, ctx.env);
    const paint = (status: string) =>
      status === 'ok'
        ? style.green(status)
        : status === 'warn'
          ? style.yellow(status)
          : status === 'FAIL'
            ? style.red(status)
            : style.dim(status);
    ctx.out(`${style.bold(name)}  (${report.transport}, ${report.source})`);
    const rows = reportRows(report).map(([status, step, detail, ms]) => [
      paint(status!),
      step!,
      printable(detail!, { singleLine: true }),
      ms!,
    ]);
    for (const line of renderTable(rows, { indent: 2, align: ['left', 'left', 'left', 'right'] }))
      ctx.out(line);
    for (const line of closingLines(report)) ctx.out(line);
  }
  return healthy ? EXIT.ok : EXIT.connection;
}

/**
 * What `switchboard doctor` found, step by step, and what it comes to: healthy or not, and
 * the list of things to fix. Pure: the checks that produce the steps live in run-doctor.ts.
 */

/** `fail` means the server cannot be used until it is fixed; `warn` that it works with a flaw. */
export type StepStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One step of the trace. */
export interface DoctorStep {
  /** `config`, `variables`, `command`, `cwd`, `url`, `dns`, `sandbox`, `spawn`, `connect`, `handshake`, `capabilities`, `tools`, `resources`, `prompts`, `auth`. */
  readonly step: string;
  readonly status: StepStatus;
  readonly detail: string;
  /** How long the step took, when it is something that takes time. */
  readonly ms?: number;
  /** What to do about a `warn` or `fail`. */
  readonly fix?: string;
}

/** What the handshake told, when it got that far. */
export interface DoctorConnection {
  readonly protocolVersion?: string;
  readonly era?: 'modern' | 'legacy';
  readonly serverInfo?: { readonly name: string; readonly version: string };
  readonly capabilities: readonly string[];
  readonly tools?: number;
  readonly resources?: number;
  readonly prompts?: number;
}

export interface DoctorReport {
  readonly server: string;
  readonly transport: 'stdio' | 'http' | 'sse';
  readonly source: string;
  readonly steps: readonly DoctorStep[];
  readonly connection?: DoctorConnection;
}

/** The verdict: healthy when no step failed; the fixes of every failed and warned step, in order. */
export function verdict(report: DoctorReport): { readonly healthy: boolean; readonly fixes: string[] } {
  const healthy = !report.steps.some((s) => s.status === 'fail');
  const fixes = report.steps
    .filter((s) => (s.status === 'fail' || s.status === 'warn') && s.fix !== undefined)
    .map((s) => s.fix!);
  return { healthy, fixes: [...new Set(fixes)] };
}

/** Steps that did not run because an earlier one failed. */
export function skipped(steps: readonly string[], why: string): DoctorStep[] {
  return steps.map((step) => ({ step, status: 'skip', detail: why }));
}

/** The report as the rows of a table: status, step, detail, time. */
export function reportRows(report: DoctorReport): string[][] {
  return report.steps.map((s) => [
    s.status === 'fail' ? 'FAIL' : s.status,
    s.step,
    s.detail,
    s.ms === undefined ? '' : `${Math.round(s.ms)} ms`,
  ]);
}

/** The closing lines: healthy, or what to fix, numbered. */
export function closingLines(report: DoctorReport): string[] {
  const { healthy, fixes } = verdict(report);
  if (healthy && fixes.length === 0) return [`"${report.server}" is healthy.`];
  const head = healthy
    ? `"${report.server}" works, with ${fixes.length === 1 ? 'one thing' : `${fixes.length} things`} to look at:`
    : `"${report.server}" cannot be used. To fix:`;
  return [head, ...fixes.map((f, i) => `  ${i + 1}. ${f}`)];
}

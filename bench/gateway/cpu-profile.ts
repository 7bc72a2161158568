import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time of one function, or one source file, in a V8 CPU profile. */
export interface SelfTime {
  readonly name: string;
  readonly ms: number;
  /** Share of the profile's busy time (idle excluded). */
  readonly share: number;
}

/** Where a profile's busy time went. */
export interface ProfileSummary {
  readonly busyMs: number;
  readonly idleMs: number;
  /** Self time by function; runtime and native frames name the nearest code that called them. */
  readonly functions: SelfTime[];
  /**
   * Self time charged to the nearest project or package file on the stack, so the time a
   * source file spends in `JSON.parse`, stream writes or crypto counts as that file's.
   */
  readonly files: SelfTime[];
}

/**
 * Reads a `.cpuprofile` written by `node --cpu-prof` and totals its self time by function and
 * by source file. Code from an esbuild bundle is traced back to its source file through the
 * `// src/…` comment esbuild writes before each module: pass the bundle's URL and text.
 */
export async function summarizeCpuProfile(
  file: string,
  options: { bundle?: { url: string; text: string }; top?: number } = {},
): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const moduleAt = options.bundle ? bundleModules(options.bundle.text) : undefined;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  /** The file a frame's code lives in: a source module of the bundle, a package file, a runtime module. */
  const sourceOf = (frame: CallFrame): string =>
    moduleAt && frame.url === options.bundle?.url ? moduleAt(frame.lineNumber) : shortUrl(frame.url);
  const isOwnCode = (frame: CallFrame) =>
    frame.url !== '' && (frame.url === options.bundle?.url || frame.url.includes('/node_modules/'));
  const label = (frame: CallFrame) => {
    const source = sourceOf(frame);
    const line = frame.url !== '' && frame.url !== options.bundle?.url ? `:${frame.lineNumber + 1}` : '';
    return `${frame.functionName || '(anonymous)'}${source ? ` ${source}${line}` : ''}`;
  };
  const nearestOwn = (id: number): CallFrame | undefined => {
    for (let at: number | undefined = id, hops = 0; at !== undefined && hops < 200; hops++) {
      const frame = byId.get(at)!.callFrame;
      if (isOwnCode(frame)) return frame;
      at = parentOf.get(at);
    }
    return undefined;
  };

  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const fns = new Map<string, number>();
  const files = new Map<string, number>();
  const add = (m: Map<string, number>, key: string, us: number) => m.set(key, (m.get(key) ?? 0) + us);
  let busy = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    const owner = nearestOwn(id);
    add(fns, owner && owner !== frame ? `${label(frame)}  ← ${label(owner)}` : label(frame), us);
    add(files, owner ? sourceOf(owner) : frame.url === '' ? frame.functionName : sourceOf(frame), us);
  }
  const rank = (m: Map<string, number>) =>
    [...m]
      .sort((x, y) => y[1] - x[1])
      .slice(0, options.top ?? 25)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy > 0 ? us / busy : 0 }));
  return { busyMs: busy / 1000, idleMs: idle / 1000, functions: rank(fns), files: rank(files) };
}

/** The summary as printed: busy and idle time, then the top files and functions by self time. */
export function renderProfileSummary(summary: ProfileSummary, file: string): string {
  const rows = (list: readonly SelfTime[]) =>
    list.map(
      (e) => `${e.ms.toFixed(0).padStart(8)} ms ${(e.share * 100).toFixed(1).padStart(5)}%  ${e.name}`,
    );
  return [
    '',
    `Gateway CPU profile ${file}: ${summary.busyMs.toFixed(0)} ms busy, ${summary.idleMs.toFixed(0)} ms idle`,
    'Self time by source file (runtime work charged to the project or package file that called it):',
    ...rows(summary.files.slice(0, 15)),
    'Self time by function (← the nearest project or package code on the stack):',
    ...rows(summary.functions),
  ].join('\n');
}

/** A lookup from a 0-based bundle line to the source module esbuild placed there. */
function bundleModules(text: string): (line: number) => string {
  const starts: { line: number; module: string }[] = [];
  text.split('\n').forEach((content, line) => {
    const match = /^\/\/ ((?:src|node_modules|bench|test)\/\S+)$/.exec(content);
    if (match) starts.push({ line, module: match[1]! });
  });
  return (line) => {
    let lo = 0;
    let hi = starts.length - 1;
    let found = 'bundle';
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]!.line <= line) {
        found = starts[mid]!.module;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found;
  };
}

/** `node_modules/<package>/…/<file>` or `node:internal/…`, without the machine's directories. */
function shortUrl(url: string): string {
  if (url === '') return '';
  const inModules = url.lastIndexOf('node_modules/');
  if (inModules >= 0) return url.slice(inModules);
  if (url.startsWith('node:')) return url;
  return basename(url);
}

/**
 * `sysinfo`: what a host is and how it is doing — host name, OS, kernel, uptime, load, CPUs,
 * memory, disks — from one POSIX shell script of standard commands run as the login user.
 * Each command's output comes under its own marker line and each may be missing (BusyBox,
 * macOS, a container without /proc): the parser takes what is there and names what is not.
 * Parsing is pure and unit-tested on real outputs.
 */

/** Marks where each command's output starts. */
const MARK = '@@switchboard-sysinfo:';

/** The script: each section is a marker line, then its command's output (errors dropped). */
export const SYSINFO_SCRIPT = [
  ['uname', 'uname -snrm'],
  ['os', 'cat /etc/os-release || sw_vers'],
  ['uptime', 'cat /proc/uptime'],
  ['load', 'cat /proc/loadavg || uptime'],
  ['memory', 'cat /proc/meminfo'],
  ['cpus', 'nproc || getconf _NPROCESSORS_ONLN || sysctl -n hw.ncpu'],
  [
    'cpu_model',
    "grep -m1 -i -E '^(model name|hardware|cpu model)' /proc/cpuinfo || sysctl -n machdep.cpu.brand_string",
  ],
  ['disks', 'df -P -k'],
]
  .map(([name, command]) => `echo '${MARK}${name}'; { ${command}; } 2>/dev/null`)
  .concat('exit 0')
  .join('\n');

/** One mounted filesystem. */
export interface Disk {
  readonly mount: string;
  readonly filesystem: string;
  readonly size_bytes: number;
  readonly used_bytes: number;
  readonly available_bytes: number;
  readonly use_percent: number;
}

/** What sysinfo found; a field is absent when the host did not say. */
export interface SysInfo {
  hostname?: string;
  os?: { name: string; version?: string; id?: string };
  kernel?: { name: string; release: string; machine: string };
  uptime_seconds?: number;
  load?: [number, number, number];
  cpu?: { count?: number; model?: string };
  memory?: {
    total_bytes: number;
    available_bytes: number;
    swap_total_bytes?: number;
    swap_free_bytes?: number;
  };
  disks?: Disk[];
  missing: string[];
}

/** The script's output, split into its sections by name. */
function sections(output: string): Map<string, string> {
  const found = new Map<string, string>();
  let name: string | undefined;
  let body: string[] = [];
  for (const line of output.split('\n')) {
    if (line.startsWith(MARK)) {
      if (name !== undefined) found.set(name, body.join('\n').trim());
      name = line.slice(MARK.length).trim();
      body = [];
    } else body.push(line);
  }
  if (name !== undefined) found.set(name, body.join('\n').trim());
  return found;
}

function keyValues(text: string, separator: RegExp): Map<string, string> {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const match = separator.exec(line);
    if (match === null || match.index === 0) continue;
    const key = line.slice(0, match.index).trim();
    let value = line.slice(match.index + match[0].length).trim();
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    values.set(key, value);
  }
  return values;
}

const number = (text: string | undefined) => {
  const value = Number(text);
  return text !== undefined && text !== '' && Number.isFinite(value) ? value : undefined;
};

// Pseudo filesystems left out of the disk list: they hold no data of their own.
const PSEUDO = new Set([
  'tmpfs',
  'devtmpfs',
  'udev',
  'none',
  'shm',
  'proc',
  'sysfs',
  'cgroup',
  'devfs',
  'map',
]);
const MAX_DISKS = 20;

function parseDisks(text: string): Disk[] {
  const disks: Disk[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 6) continue;
    const [filesystem, blocks, used, available, capacity] = fields as [
      string,
      string,
      string,
      string,
      string,
    ];
    const mount = fields.slice(5).join(' ');
    const size = number(blocks);
    if (size === undefined || size === 0 || PSEUDO.has(filesystem)) continue;
    if (mount !== '/' && /^\/(proc|sys|dev|run)(\/|$)/.test(mount)) continue;
    disks.push({
      mount,
      filesystem,
      size_bytes: size * 1024,
      used_bytes: (number(used) ?? 0) * 1024,
      available_bytes: (number(available) ?? 0) * 1024,
      use_percent: number(capacity.replace('%', '')) ?? 0,
    });
    if (disks.length >= MAX_DISKS) break;
  }
  return disks;
}

/** Reads the script's output. Pure; never throws on odd input, it only finds less. */
export function parseSysinfo(output: string): SysInfo {
  const s = sections(output);
  const info: SysInfo = { missing: [] };
  const uname = s.get('uname')?.split(/\s+/);
  if (uname !== undefined && uname.length >= 4) {
    info.hostname = uname[1]!;
    info.kernel = { name: uname[0]!, release: uname[2]!, machine: uname[uname.length - 1]! };
  }
  const os = keyValues(s.get('os') ?? '', /=|:\t/);
  const osName = os.get('PRETTY_NAME') ?? os.get('NAME') ?? os.get('ProductName');
  if (osName !== undefined)
    info.os = {
      name: osName,
      ...((os.get('VERSION_ID') ?? os.get('ProductVersion')) !== undefined && {
        version: (os.get('VERSION_ID') ?? os.get('ProductVersion'))!,
      }),
      ...(os.get('ID') !== undefined && { id: os.get('ID')! }),
    };
  const up = number(s.get('uptime')?.split(/\s+/)[0]);
  if (up !== undefined) info.uptime_seconds = Math.floor(up);
  const loadText = s.get('load') ?? '';
  const load =
    /^([\d.]+)\s+([\d.]+)\s+([\d.]+)/.exec(loadText) ??
    /load averages?:\s*([\d.]+),?\s+([\d.]+),?\s+([\d.]+)/.exec(loadText);
  if (load !== null) info.load = [Number(load[1]), Number(load[2]), Number(load[3])];
  const count = number(s.get('cpus')?.split('\n')[0]);
  const model = s
    .get('cpu_model')
    ?.split('\n')[0]
    ?.replace(/^[^:]*:\s*/, '')
    .trim();
  if (count !== undefined || model)
    info.cpu = { ...(count !== undefined && { count }), ...(model && { model }) };
  const mem = keyValues(s.get('memory') ?? '', /:/);
  const kib = (key: string) => number(mem.get(key)?.replace(/\s*kB$/i, ''));
  const total = kib('MemTotal');
  if (total !== undefined) {
    const available =
      kib('MemAvailable') ?? (kib('MemFree') ?? 0) + (kib('Buffers') ?? 0) + (kib('Cached') ?? 0);
    const swapTotal = kib('SwapTotal');
    const swapFree = kib('SwapFree');
    info.memory = {
      total_bytes: total * 1024,
      available_bytes: available * 1024,
      ...(swapTotal !== undefined && { swap_total_bytes: swapTotal * 1024 }),
      ...(swapFree !== undefined && { swap_free_bytes: swapFree * 1024 }),
    };
  }
  const disks = parseDisks(s.get('disks') ?? '');
  if (disks.length > 0) info.disks = disks;
  for (const [field, present] of [
    ['hostname/kernel', info.kernel],
    ['os', info.os],
    ['uptime', info.uptime_seconds],
    ['load', info.load],
    ['cpu', info.cpu],
    ['memory', info.memory],
    ['disks', info.disks],
  ] as const)
    if (present === undefined) info.missing.push(field);
  return info;
}

function size(bytes: number): string {
  const gib = bytes / 1024 ** 3;
  return gib >= 1 ? `${gib.toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(0)} MiB`;
}

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86_400);
  const h = Math.floor((seconds % 86_400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return [d > 0 && `${d} d`, (d > 0 || h > 0) && `${h} h`, `${m} min`].filter(Boolean).join(' ');
}

/** The compact text form: one line per topic, one per disk. Pure. */
export function describeSysinfo(info: SysInfo): string {
  const lines: string[] = [];
  const host = [
    info.hostname,
    info.os?.name,
    info.kernel && `${info.kernel.name} ${info.kernel.release} (${info.kernel.machine})`,
  ].filter(Boolean);
  if (host.length > 0) lines.push(`host    ${host.join(' · ')}`);
  const state = [
    info.uptime_seconds !== undefined && `up ${duration(info.uptime_seconds)}`,
    info.load && `load ${info.load.join(' ')}`,
    info.cpu &&
      `${info.cpu.count ?? '?'} CPU${info.cpu.count === 1 ? '' : 's'}${info.cpu.model ? ` (${info.cpu.model})` : ''}`,
  ].filter(Boolean);
  if (state.length > 0) lines.push(`system  ${state.join(' · ')}`);
  if (info.memory) {
    const m = info.memory;
    const swap =
      m.swap_total_bytes !== undefined && m.swap_total_bytes > 0
        ? ` · swap ${size(m.swap_total_bytes - (m.swap_free_bytes ?? 0))} used of ${size(m.swap_total_bytes)}`
        : '';
    lines.push(
      `memory  ${size(m.total_bytes - m.available_bytes)} used of ${size(m.total_bytes)} (${size(m.available_bytes)} available)${swap}`,
    );
  }
  for (const d of info.disks ?? [])
    lines.push(
      `disk    ${d.mount}  ${size(d.used_bytes)} used of ${size(d.size_bytes)} (${d.use_percent}%) · ${d.filesystem}`,
    );
  if (info.missing.length > 0) lines.push(`[not reported by this host: ${info.missing.join(', ')}]`);
  return lines.join('\n');
}

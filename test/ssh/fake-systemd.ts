/**
 * Stand-ins for `systemctl` and `journalctl`: the test sshd runs in a container without
 * systemd as PID 1, where the real ones can only say "System has not been booted with
 * systemd". These shell scripts do the subset the `systemd` tool uses — show, list-units,
 * start/stop/restart/reload/enable/disable (refused unless run as root, as polkit would
 * without a session), journal lines — on units kept as files in a state folder, and record
 * every call: the user it ran as and its exact arguments, NUL-separated, so a test sees what
 * reached the program byte for byte.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A unit the fake knows. */
export interface FakeUnit {
  readonly active: 'active' | 'inactive' | 'failed';
  readonly enabled: 'enabled' | 'disabled';
  readonly description: string;
  /** Starting it fails (exit 1), as a unit whose process exits at once. */
  readonly fails?: boolean;
  readonly journal?: readonly string[];
}

/** One recorded call. */
export interface FakeCall {
  readonly program: string;
  readonly user: string;
  readonly args: readonly string[];
}

const record = (program: string) => `f="$STATE/calls/$(date +%s%N).$$.${program}"
{ id -un; printf '%s\\0' "$@"; } > "$f"`;

const systemctl = (state: string) => `#!/bin/sh
STATE='${state}'
${record('systemctl')}
cmd=""; unit=""; filter=""; rest=0
for a in "$@"; do
  if [ "$rest" = 1 ]; then unit="$a"; continue; fi
  case "$a" in
    --) rest=1 ;;
    --state=*) filter="\${a#--state=}" ;;
    -*) ;;
    *) if [ -z "$cmd" ]; then cmd="$a"; else unit="$a"; fi ;;
  esac
done
u="$STATE/units/$unit"
case "$cmd" in
  show)
    if [ ! -f "$u.active" ]; then printf 'Id=%s\\nLoadState=not-found\\nActiveState=inactive\\nSubState=dead\\n' "$unit"; exit 0; fi
    act=$(cat "$u.active"); sub=running; [ "$act" = active ] || sub=dead
    printf 'Id=%s\\nDescription=%s\\nLoadState=loaded\\nActiveState=%s\\nSubState=%s\\nUnitFileState=%s\\nMainPID=4242\\nResult=success\\nNRestarts=0\\nFragmentPath=/etc/systemd/system/%s\\n' "$unit" "$(cat "$u.desc")" "$act" "$sub" "$(cat "$u.enabled")" "$unit"
    ;;
  list-units)
    for f in "$STATE"/units/*.active; do
      [ -f "$f" ] || continue
      n=$(basename "$f" .active); act=$(cat "$f"); sub=running; [ "$act" = active ] || sub=dead
      if [ -n "$filter" ] && [ "$filter" != "$act" ] && [ "$filter" != "$sub" ]; then continue; fi
      if [ -n "$unit" ]; then case "$n" in $unit) ;; *) continue ;; esac; fi
      printf '%s loaded %s %s %s\\n' "$n" "$act" "$sub" "$(cat "$STATE/units/$n.desc")"
    done
    ;;
  start|stop|restart|reload|enable|disable)
    if [ "$(id -u)" != 0 ]; then echo "Failed to $cmd $unit: Access denied" >&2; exit 4; fi
    if [ ! -f "$u.active" ]; then echo "Failed to $cmd $unit: Unit $unit not found." >&2; exit 5; fi
    if [ -f "$u.fails" ] && [ "$cmd" != stop ]; then
      echo failed > "$u.active"
      echo "Job for $unit failed because the control process exited with error code." >&2; exit 1
    fi
    case "$cmd" in
      start|restart|reload) echo active > "$u.active" ;;
      stop) echo inactive > "$u.active" ;;
      enable) echo enabled > "$u.enabled" ;;
      disable) echo disabled > "$u.enabled" ;;
    esac
    ;;
  *) echo "Unknown command verb $cmd." >&2; exit 1 ;;
esac
`;

const journalctl = (state: string) => `#!/bin/sh
STATE='${state}'
${record('journalctl')}
n=10; unit=""
for a in "$@"; do
  case "$a" in
    --lines=*) n="\${a#--lines=}" ;;
    --unit=*) unit="\${a#--unit=}" ;;
  esac
done
if [ -s "$STATE/journal/$unit" ]; then tail -n "$n" "$STATE/journal/$unit"; else echo "-- No entries --"; fi
`;

/** The fake's folder: `bin` goes first on the PATH; `units`, `journal`, `calls` hold its state. */
export interface FakeSystemd {
  readonly bin: string;
  addUnit(name: string, unit: FakeUnit): Promise<void>;
  unitState(name: string): Promise<{ active: string; enabled: string }>;
  /** Every call so far, in order; `clearCalls` forgets them. */
  calls(): Promise<FakeCall[]>;
  clearCalls(): Promise<void>;
  remove(): Promise<void>;
}

/** A new folder name for the fake, known before it is made (an sshd's PATH is set at its start). */
export function fakeSystemdDir(): string {
  return join(tmpdir(), `sb-fake-systemd-${randomBytes(4).toString('hex')}`);
}

/** Lays out the fake in `dir`, reachable by every user (sudo and the test user run it). */
export async function makeFakeSystemd(dir: string): Promise<FakeSystemd> {
  const bin = join(dir, 'bin');
  for (const sub of ['bin', 'units', 'journal', 'calls']) await mkdir(join(dir, sub), { recursive: true });
  await chmod(dir, 0o755);
  await chmod(join(dir, 'calls'), 0o777);
  await writeFile(join(bin, 'systemctl'), systemctl(dir), { mode: 0o755 });
  await writeFile(join(bin, 'journalctl'), journalctl(dir), { mode: 0o755 });
  const unitFile = (name: string, ext: string) => join(dir, 'units', `${name}.${ext}`);
  return {
    bin,
    async addUnit(name, unit) {
      await writeFile(unitFile(name, 'active'), `${unit.active}\n`);
      await writeFile(unitFile(name, 'enabled'), `${unit.enabled}\n`);
      await writeFile(unitFile(name, 'desc'), unit.description);
      if (unit.fails) await writeFile(unitFile(name, 'fails'), '');
      if (unit.journal) await writeFile(join(dir, 'journal', name), `${unit.journal.join('\n')}\n`);
    },
    async unitState(name) {
      return {
        active: (await readFile(unitFile(name, 'active'), 'utf8')).trim(),
        enabled: (await readFile(unitFile(name, 'enabled'), 'utf8')).trim(),
      };
    },
    async calls() {
      const names = (await readdir(join(dir, 'calls'))).sort();
      return Promise.all(
        names.map(async (name) => {
          const text = await readFile(join(dir, 'calls', name), 'utf8');
          const newline = text.indexOf('\n');
          const args = text.slice(newline + 1).split('\0');
          args.pop();
          return { program: name.split('.').pop()!, user: text.slice(0, newline), args };
        }),
      );
    },
    async clearCalls() {
      for (const name of await readdir(join(dir, 'calls'))) await rm(join(dir, 'calls', name));
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

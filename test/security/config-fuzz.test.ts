import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigFile } from '../../src/config-files/load-config.js';
import { decodeUtf8 } from '../../src/config-files/read-text.js';
import { normalizeConfigFile, parseConfigText } from '../../src/core/config/config-file.js';
import { resolveGateway } from '../../src/core/config/gateway-config.js';
import { resolveGovernance } from '../../src/core/config/governance-config.js';
import { parseClaudeCodeConfig } from '../../src/core/config/imports/claude-code.js';
import { parseCodexConfig } from '../../src/core/config/imports/codex.js';
import { parseVsCodeConfig } from '../../src/core/config/imports/vscode.js';
import { isServerName } from '../../src/core/config/server-name.js';
import { isSwitchboardError } from '../../src/core/errors.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';
import { excerpt, fuzzSettings, hostileValue, MIN_CASES, Random } from './fuzz-random.js';

/**
 * The config loader under random input: valid configs mutated (cut short, nested deep, long
 * strings, bytes that are not UTF-8, random bytes, wrong types in every field, prototype
 * keys). The judge: every input ends in a normalized config or a SwitchboardError with a
 * CONFIG_* code whose message names the file — never another exception, never a hang (each
 * case is timed). Seeded and bounded; `fuzz-random.ts` says how to run it longer.
 */
const FILE = '/fuzz/switchboard.json';

const BASES: readonly unknown[] = [
  {
    $schema: './schema.json',
    servers: {
      fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '${HOME}/notes'] },
      gh: {
        url: 'https://api.example.com/mcp',
        headers: { Authorization: 'Bearer ${GH_TOKEN}' },
        trust: 'trusted',
        tools: { exclude: ['delete_*'] },
        timeouts: { connect: 60, request: 120, startup: 120 },
      },
    },
  },
  {
    servers: {
      tickets: { url: 'https://t.example.com/mcp', api_key: '${TICKETS_KEY}' },
      crm: { url: 'https://crm.example.com/mcp', auth: { type: 'oauth', scopes: ['read'] } },
      billing: {
        url: 'https://b.example.com/mcp',
        auth: { type: 'oauth', grant: 'client_credentials', clientId: 'svc', clientSecret: '${S}' },
      },
      local: {
        command: 'node',
        args: ['x.js'],
        env: { A: '1' },
        cwd: '/tmp',
        roots: [{ uri: 'file:///tmp' }],
      },
    },
    governance: {
      mode: 'auto-edit',
      rules: [{ server: 'github', tool: 'delete_*', effect: 'deny' }],
      network: { allowPrivate: false, allowedHosts: ['*.example.com'] },
    },
    gateway: {
      port: 7777,
      auth: { mode: 'bearer', tokens: [{ id: 'ci', sha256: 'a'.repeat(64), servers: ['docs'] }] },
      limits: { depth: 32 },
      rateLimit: { perIp: { burst: 60, perSecond: 20 } },
    },
  },
];

/** Every path to a value inside `value`, for replacing one. */
function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value !== 'object' || value === null) return [at];
  const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return [at, ...keys.flatMap((k) => paths((value as Record<string | number, unknown>)[k], [...at, k]))];
}

function replaced(value: unknown, path: (string | number)[], next: unknown): unknown {
  if (path.length === 0) return next;
  const [head, ...rest] = path;
  const copy = Array.isArray(value) ? [...value] : { ...(value as object) };
  (copy as Record<string | number, unknown>)[head!] = replaced(
    (value as Record<string | number, unknown>)[head!],
    rest,
    next,
  );
  return copy;
}

/** One hostile input, as text or bytes. */
function mutate(r: Random): string | Buffer {
  const base = r.pick(BASES);
  const text = JSON.stringify(base, null, r.chance(0.5) ? 2 : 0);
  switch (r.int(10)) {
    case 0:
      return text.slice(0, r.int(text.length));
    case 1: {
      const at = r.int(text.length);
      const depth = r.pick([65, 1000, 5000, 50_000]);
      return `${text.slice(0, at)}${(r.chance(0.5) ? '[' : '{"a":').repeat(depth)}${text.slice(at)}`;
    }
    case 2: {
      const at = r.int(text.length);
      return `${text.slice(0, at)}${r.text(r.pick([10, 1000, 200_000]))}${text.slice(at)}`;
    }
    case 3: {
      const bytes = Buffer.from(text);
      for (let i = r.int(5) + 1; i > 0; i--) bytes[r.int(bytes.length)] = 0x80 + r.int(0x80);
      return bytes;
    }
    case 4:
      return r.bytes(r.int(4096));
    case 5: {
      // One field, anywhere, replaced by a value of a wrong type or an extreme one.
      const all = paths(base);
      return JSON.stringify(replaced(base, r.pick(all), hostileValue(r)));
    }
    case 6: {
      // A key added anywhere: prototype names, odd Unicode, a duplicate.
      const at = text.indexOf('{', r.int(text.length));
      if (at === -1) return text;
      const key = r.chance(0.5)
        ? r.pick(['__proto__', 'constructor', 'servers', 'command', 'fs'])
        : r.text(5);
      return `${text.slice(0, at + 1)}${JSON.stringify(key)}:${JSON.stringify(hostileValue(r))},${text.slice(at + 1)}`;
    }
    case 7:
      return `\ufeff// comment\n${text.replace(/,/g, () => (r.chance(0.2) ? ',,' : r.chance(0.1) ? ', /* c */' : ','))}`;
    case 8: {
      const at = r.int(text.length);
      return (
        text.slice(0, at) +
        r.pick(['\u0000', '\r', '\u2028', '"', '\\', '/*', '//', '}', ']', ':']) +
        text.slice(at)
      );
    }
    default:
      return JSON.stringify(hostileValue(r));
  }
}

/** How many inputs loaded without an error (the fuzz must reach the normalizer, not only the parser). */
let normalized = 0;

/** Loads one input the way a file is loaded, in both modes; returns what is wrong, or undefined. */
function judge(input: string | Buffer): string | undefined {
  const problem = (what: string, error?: unknown) =>
    `${what}${error instanceof Error ? `: ${error.name}: ${error.message.slice(0, 300)}` : ''}`;
  for (const mode of ['throw', 'collect'] as const) {
    try {
      const text = typeof input === 'string' ? input : decodeUtf8(input, FILE);
      const config = normalizeConfigFile(parseConfigText(text, FILE), FILE, { invalidEntries: mode });
      for (const entry of config.invalid ?? []) {
        if (entry.error.code !== 'CONFIG_INVALID' || !entry.error.message.includes(FILE))
          return problem(`an invalid entry's error does not name the file (${mode})`, entry.error);
      }
      // What loads must be usable: the sections resolve.
      resolveGateway(config.gateway ?? {});
      resolveGovernance(config.governance ?? {});
      if (mode === 'throw') normalized++;
    } catch (error) {
      if (!isSwitchboardError(error, 'CONFIG_INVALID', 'CONFIG_READ_FAILED'))
        return problem(`not a CONFIG_* SwitchboardError (${mode})`, error);
      if (!error.message.includes(FILE)) return problem('the message does not name the file', error);
      if (error.message.length > 2000)
        return problem(`a message of ${error.message.length} characters: ${error.message.slice(0, 200)}`);
    }
  }
  return undefined;
}

/** The importers under the same inputs: a result of valid entries, or CONFIG_INVALID. */
function judgeImport(input: string | Buffer): string | undefined {
  const text = typeof input === 'string' ? input : input.toString('utf8');
  const mcp = text.replace('"servers"', '"mcpServers"');
  for (const parse of [
    () => parseClaudeCodeConfig(mcp, '/fuzz/.mcp.json'),
    () => parseVsCodeConfig(text, '/fuzz/mcp.json'),
    () => parseCodexConfig(text.replace(/[{}]/g, '\n'), '/fuzz/config.toml'),
  ]) {
    try {
      for (const { entry } of parse().entries) {
        if (!isServerName(entry.name)) return `imported the name ${JSON.stringify(entry.name)}`;
        normalizeServerEntry(entry);
      }
    } catch (error) {
      if (!isSwitchboardError(error, 'CONFIG_INVALID'))
        return `an importer threw ${error instanceof Error ? `${error.name}: ${error.message.slice(0, 200)}` : error}`;
    }
  }
  return undefined;
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sb-config-fuzz-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SETTINGS = fuzzSettings('config fuzz', { runs: 4000, ms: 3500 });

describe('config loader fuzz', () => {
  it(
    'every input is a config or a CONFIG_* error naming the file',
    async () => {
      const { seed, runs, ms } = SETTINGS;
      const r = new Random(seed);
      const started = performance.now();
      let cases = 0;
      const failures: string[] = [];
      while (cases < runs && (cases < MIN_CASES || performance.now() - started < ms) && failures.length < 5) {
        const input = mutate(r);
        const t0 = performance.now();
        const wrong = judge(input) ?? judgeImport(input);
        const took = performance.now() - t0;
        // A hang shows as one case taking far longer than the rest; the bound has room for load.
        const slow = took > 2000 ? `took ${Math.round(took)} ms` : undefined;
        if (wrong || slow)
          failures.push(`seed ${seed}, case ${cases}: ${wrong ?? slow} — input ${excerpt(input)}`);
        // Now and then through the real reader, from a file.
        if (cases % 200 === 0) {
          const file = join(dir, 'switchboard.json');
          await writeFile(file, input);
          await loadConfigFile(file, { invalidEntries: 'collect' }).catch((error: unknown) => {
            if (
              !isSwitchboardError(error, 'CONFIG_INVALID', 'CONFIG_READ_FAILED') ||
              !error.message.includes(file)
            )
              failures.push(`seed ${seed}, case ${cases} from a file: ${String(error)}`);
          });
        }
        cases++;
        // Let the test runner's own messages through on a long run.
        if (cases % 50 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      expect(failures).toEqual([]);
      // Not vacuous: some of them loaded.
      expect(normalized).toBeGreaterThan(0);
      console.log(
        `config fuzz: ${cases} cases, ${normalized} loaded, ${Math.round(performance.now() - started)} ms`,
      );
      // The budget, with room for one slow case on a loaded machine.
    },
    SETTINGS.ms + 60_000,
  );
});

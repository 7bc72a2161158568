import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRequestLine } from '../../src/cli/jsonl/requests.js';
import { loadConfigFile } from '../../src/config-files/load-config.js';
import { normalizeServerEntry } from '../../src/core/server-config.js';

/**
 * Every JSON snippet of README.md and docs/*.md that shows our configuration is loaded by the
 * real loader (read from a file, parsed, normalized), and every JSON-lines request is parsed
 * by the real protocol parser — so the documentation cannot show a field the loader rejects.
 * Fragments are completed the way a reader would paste them: `"name": { … }` entries into
 * `{ "servers": { … } }`, a `"servers"` / `"governance"` / `"gateway"` section into `{ … }`.
 * A snippet of another client's file is marked `<!-- snippet: other client -->` on the line
 * before its fence, and is not ours to check.
 */
const repo = join(dirname(fileURLToPath(import.meta.url)), '../..');
const OTHER_CLIENT = '<!-- snippet: other client -->';
const SECTIONS = ['"servers"', '"governance"', '"gateway"', '"telemetry"', '"$schema"'];

interface Snippet {
  readonly where: string;
  readonly text: string;
  readonly other: boolean;
}

async function snippets(): Promise<Snippet[]> {
  const files = [
    'README.md',
    ...(await readdir(join(repo, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ];
  const found: Snippet[] = [];
  for (const file of files) {
    const lines = (await readFile(join(repo, file), 'utf8')).split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!/^```jsonc?\s*$/.test(lines[i]!)) continue;
      const start = i;
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      const before = lines
        .slice(0, start)
        .reverse()
        .find((l) => l.trim() !== '');
      found.push({
        where: `${file}:${start + 1}`,
        text: body.join('\n'),
        other: before?.trim() === OTHER_CLIENT,
      });
    }
  }
  return found;
}

/** The text without its leading comment lines, to see what it starts with. */
function head(text: string): string {
  return text.replace(/^(\s*\/\/[^\n]*\n)*/, '').trimStart();
}

/** A config snippet completed into a whole file. */
function asFile(text: string): string {
  const start = head(text);
  if (start.startsWith('{')) return text;
  if (SECTIONS.some((s) => start.startsWith(s))) return `{\n${text}\n}`;
  return `{ "servers": {\n${text}\n} }`;
}

let all: Snippet[];
let dir: string;
beforeAll(async () => {
  all = await snippets();
  dir = await mkdtemp(join(tmpdir(), 'sb-snippets-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('documentation snippets', () => {
  it('every switchboard.json snippet loads through the real loader', async () => {
    const configs = all.filter((s) => !s.other && !/^\{"(op|type)"/.test(head(s.text)));
    // Enough of them that the check cannot pass by finding none.
    expect(configs.length).toBeGreaterThanOrEqual(8);
    const failures: string[] = [];
    for (const [i, snippet] of configs.entries()) {
      const file = join(dir, `snippet-${i}.json`);
      await writeFile(file, asFile(snippet.text));
      await loadConfigFile(file).catch((error: unknown) =>
        failures.push(`${snippet.where}: ${(error as Error).message}`),
      );
    }
    expect(failures).toEqual([]);
  });

  it('every JSON-lines request parses, and every mcp_set entry normalizes', () => {
    const requests = all
      .filter((s) => head(s.text).startsWith('{"op"'))
      .flatMap((s) => s.text.split('\n').map((line, i) => ({ where: `${s.where}+${i + 1}`, line })));
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const { where, line } of requests) {
      const parsed = parseRequestLine(line);
      expect(parsed, where).toMatchObject({ ok: true });
      const request = parsed.ok ? parsed.request : undefined;
      if (request?.op === 'mcp_set') expect(() => normalizeServerEntry(request.server), where).not.toThrow();
    }
  });

  it("the snippets marked as another client's are such (they would not load as ours)", async () => {
    const others = all.filter((s) => s.other);
    for (const [i, snippet] of others.entries()) {
      const file = join(dir, `other-${i}.json`);
      await writeFile(file, asFile(snippet.text));
      await expect(loadConfigFile(file), snippet.where).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    }
  });
});

describe("the README's CLI lines", () => {
  /** Every `npx switchboard …` command the README shows, with the line it is on. */
  async function commandLines(): Promise<{ where: string; line: string }[]> {
    const lines = (await readFile(join(repo, 'README.md'), 'utf8')).split('\n');
    return lines.flatMap((line, i) =>
      /^(\$ )?npx switchboard /.test(line) ? [{ where: `README.md:${i + 1}`, line }] : [],
    );
  }

  it('use the demo servers npm start runs, never a test fixture, and a --config that exists', async () => {
    const demo = JSON.parse(await readFile(join(repo, 'examples/demo/switchboard.json'), 'utf8')) as {
      servers: Record<string, unknown>;
    };
    const lines = await commandLines();
    expect(lines.length).toBeGreaterThanOrEqual(10);
    for (const { where, line } of lines) {
      expect(line, where).not.toMatch(/\bkitchen\b/);
      const config = /--config (\S+)/.exec(line)?.[1];
      if (config)
        await expect(readFile(join(repo, config, 'switchboard.json')), where).resolves.toBeDefined();
      // `<server>.<tool>` of a call names a demo server (placeholders in <…> aside).
      const called = /\b(?:call|describe) ([a-z][\w-]*)\./.exec(line)?.[1];
      if (called) expect(Object.keys(demo.servers), where).toContain(called);
    }
  });
});

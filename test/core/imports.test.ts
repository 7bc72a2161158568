import { describe, expect, it } from 'vitest';
import { parseClaudeCodeConfig } from '../../src/core/config/imports/claude-code.js';
import { parseClaudeDesktopConfig } from '../../src/core/config/imports/claude-desktop.js';
import { parseCodexConfig } from '../../src/core/config/imports/codex.js';
import { parseCursorConfig } from '../../src/core/config/imports/cursor.js';
import { parseVsCodeConfig } from '../../src/core/config/imports/vscode.js';
import { parseWindsurfConfig } from '../../src/core/config/imports/windsurf.js';
import { thrown } from '../helpers/rejection.js';

describe('Claude Desktop', () => {
  const file = '/home/me/.config/Claude/claude_desktop_config.json';
  it('imports mcpServers, keeping $ literal', () => {
    const text = JSON.stringify({
      mcpServers: {
        filesystem: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Desktop'],
        },
        postgres: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-postgres'],
          env: { PGPASSWORD: 'pa$$word' },
        },
      },
      globalShortcut: 'Ctrl+Space',
    });
    const { entries, warnings } = parseClaudeDesktopConfig(text, file);
    expect(warnings).toEqual([]);
    expect(entries.map((e) => e.entry.name)).toEqual(['filesystem', 'postgres']);
    expect(entries[0]?.source).toBe(`claude-desktop:${file}`);
    expect(entries[1]?.entry.env).toEqual({ PGPASSWORD: 'pa$$$$word' });
  });

  it('reports entries it cannot carry over and odd names', () => {
    const text =
      '{ "mcpServers": { "my server": { "command": "uvx", "args": ["mcp-server-git"], "alwaysAllow": ["x"] }, "broken": { "args": [] }, "n": 3 } }';
    const { entries, warnings } = parseClaudeDesktopConfig(text, file);
    expect(entries.map((e) => e.entry.name)).toEqual(['my-server']);
    expect(warnings).toEqual([
      'server "my server": "alwaysAllow" not imported (no Switchboard equivalent).',
      'server "my server" was renamed "my-server" (a server name has 1 to 64 characters: letters, digits, "_", "." and "-", starting with a letter or digit).',
      `server "broken" was not imported: ${file}: server "broken", field "command": neither "command" nor "url" is set. Add "command" (local server) or "url" (remote server).`,
      'server "n" is not an object and was not imported.',
    ]);
  });

  it('rejects malformed JSON with line and column', () => {
    expect(
      thrown(() =>
        parseClaudeDesktopConfig('{\n  "mcpServers": {\n    "a": { "command": "x" },,\n  }\n}', file),
      ).message,
    ).toBe(
      `${file}:3:29: a property name in double quotes is expected. Fix the JSON there (comments and trailing commas are allowed).`,
    );
  });
});

describe('Claude Code', () => {
  it('imports .mcp.json with types and ${VAR:-default}', () => {
    const text = JSON.stringify({
      mcpServers: {
        sentry: { type: 'http', url: 'https://mcp.sentry.dev/mcp' },
        linear: {
          type: 'sse',
          url: 'https://mcp.linear.app/sse',
          headers: { Authorization: 'Bearer ${LINEAR_KEY}' },
        },
        db: {
          type: 'stdio',
          command: 'npx',
          args: ['-y', 'db-mcp', '--dsn', '${DSN:-postgres://localhost/dev}'],
          env: { COST: '$5' },
        },
      },
    });
    const { entries, warnings } = parseClaudeCodeConfig(text, '/p/.mcp.json');
    expect(warnings).toEqual([]);
    expect(entries.map((e) => e.entry)).toEqual([
      { name: 'sentry', transport: 'http', url: 'https://mcp.sentry.dev/mcp' },
      {
        name: 'linear',
        transport: 'sse',
        url: 'https://mcp.linear.app/sse',
        headers: { Authorization: 'Bearer ${LINEAR_KEY}' },
      },
      {
        name: 'db',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', 'db-mcp', '--dsn', '${DSN:-postgres://localhost/dev}'],
        env: { COST: '$$5' },
      },
    ]);
  });

  it("takes user servers and this project's local ones from ~/.claude.json, local winning", () => {
    const text = JSON.stringify({
      numStartups: 12,
      mcpServers: {
        memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        gh: { command: 'gh-mcp' },
      },
      projects: {
        '/srv/app': {
          allowedTools: [],
          mcpServers: { gh: { type: 'http', url: 'https://api.githubcopilot.com/mcp/' } },
        },
        '/srv/other': { mcpServers: { other: { command: 'x' } } },
      },
    });
    const { entries } = parseClaudeCodeConfig(text, '/home/me/.claude.json', { projectDir: '/srv/app/' });
    expect(entries.map((e) => [e.entry.name, e.entry.url ?? e.entry.command])).toEqual([
      ['memory', 'npx'],
      ['gh', 'https://api.githubcopilot.com/mcp/'],
    ]);
    expect(parseClaudeCodeConfig(text, '/home/me/.claude.json').entries.map((e) => e.entry.name)).toEqual([
      'memory',
      'gh',
    ]);
  });
});

describe('Cursor', () => {
  it('rewrites ${env:VAR}, ${userHome} and ${workspaceFolder}', () => {
    const text = `{
      // Cursor accepts comments too
      "mcpServers": {
        "stripe": { "command": "npx", "args": ["-y", "@stripe/mcp", "--tools=all"], "env": { "STRIPE_SECRET_KEY": "\${env:STRIPE_KEY}" } },
        "docs": { "command": "node", "args": ["\${workspaceFolder}/tools/docs.js", "\${userHome}/docs"], "envFile": ".env" },
        "remote": { "url": "https://mcp.example.com/mcp", "headers": { "API_KEY": "\${env:EXAMPLE_KEY}" } },
      }
    }`;
    const { entries, warnings } = parseCursorConfig(text, '/srv/app/.cursor/mcp.json', {
      projectDir: '/srv/app',
    });
    expect(entries.map((e) => e.entry)).toEqual([
      {
        name: 'stripe',
        command: 'npx',
        args: ['-y', '@stripe/mcp', '--tools=all'],
        env: { STRIPE_SECRET_KEY: '${STRIPE_KEY}' },
      },
      { name: 'docs', command: 'node', args: ['/srv/app/tools/docs.js', '${HOME}/docs'] },
      { name: 'remote', url: 'https://mcp.example.com/mcp', headers: { API_KEY: '${EXAMPLE_KEY}' } },
    ]);
    expect(warnings).toEqual(['server "docs": "envFile" not imported (no Switchboard equivalent).']);
  });

  it('warns about ${workspaceFolder} in the user file, and refuses command+url', () => {
    const text =
      '{ "mcpServers": { "a": { "command": "node", "args": ["${workspaceFolder}/a.js"] }, "b": { "command": "x", "url": "https://h/" } } }';
    const { entries, warnings } = parseCursorConfig(text, '/home/me/.cursor/mcp.json');
    expect(entries.map((e) => e.entry.args)).toEqual([['$${workspaceFolder}/a.js']]);
    expect(warnings[0]).toBe(
      'server "a", args[0]: ${workspaceFolder} is unknown here and was kept as literal text; replace it with a path.',
    );
    expect(warnings[1]).toMatch(/server "b" was not imported: .*both "command" and "url" are set/);
  });
});

describe('VS Code', () => {
  it('turns ${input:id} into an environment variable and says which to set', () => {
    const text = `{
      "inputs": [
        { "type": "promptString", "id": "github-pat", "description": "GitHub Personal Access Token", "password": true }
      ],
      "servers": {
        "github": { "type": "http", "url": "https://api.githubcopilot.com/mcp/", "headers": { "Authorization": "Bearer \${input:github-pat}" } },
        "perplexity": { "type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"], "env": { "PERPLEXITY_API_KEY": "\${input:perplexity-key}" }, "dev": { "watch": "src/**" } }
      }
    }`;
    const { entries, warnings } = parseVsCodeConfig(text, '/srv/app/.vscode/mcp.json', {
      projectDir: '/srv/app',
    });
    expect(entries[0]?.entry.headers).toEqual({ Authorization: 'Bearer ${GITHUB_PAT}' });
    expect(entries[1]?.entry.env).toEqual({ PERPLEXITY_API_KEY: '${PERPLEXITY_KEY}' });
    expect(warnings).toEqual([
      'server "github", headers.Authorization: ${input:github-pat} ("GitHub Personal Access Token") became ${GITHUB_PAT}; set GITHUB_PAT in the environment before the server starts.',
      'server "perplexity", env.PERPLEXITY_API_KEY: ${input:perplexity-key} became ${PERPLEXITY_KEY}; set PERPLEXITY_KEY in the environment before the server starts.',
    ]);
  });

  it('warns about a type it does not know', () => {
    const { entries, warnings } = parseVsCodeConfig(
      '{ "servers": { "x": { "type": "websocket", "url": "https://h/" } } }',
      'mcp.json',
    );
    expect(entries[0]?.entry).toEqual({ name: 'x', url: 'https://h/' });
    expect(warnings).toEqual([
      'server "x": type "websocket" is not known; the transport is inferred from command/url.',
    ]);
  });
});

describe('Windsurf', () => {
  it('reads serverUrl, disabled and disabledTools', () => {
    const text = JSON.stringify({
      mcpServers: {
        figma: {
          serverUrl: 'https://mcp.figma.com/mcp',
          headers: { Authorization: 'Bearer ${env:FIGMA_TOKEN}' },
        },
        git: { command: 'uvx', args: ['mcp-server-git'], disabled: true, disabledTools: ['git_reset'] },
      },
    });
    const { entries, warnings } = parseWindsurfConfig(text, '/home/me/.codeium/windsurf/mcp_config.json');
    expect(warnings).toEqual([]);
    expect(entries.map((e) => e.entry)).toEqual([
      {
        name: 'figma',
        url: 'https://mcp.figma.com/mcp',
        headers: { Authorization: 'Bearer ${FIGMA_TOKEN}' },
      },
      {
        name: 'git',
        command: 'uvx',
        args: ['mcp-server-git'],
        enabled: false,
        tools: { exclude: ['git_reset'] },
      },
    ]);
  });
});

describe('Codex', () => {
  const file = '/home/me/.codex/config.toml';
  it('imports [mcp_servers.<name>] tables', () => {
    const text = `model = "o4-mini"

[mcp_servers.context7]
command = "npx"
args = ["-y", "@upstash/context7-mcp"]
env = { "API_KEY" = "k$1" }
env_vars = ["HTTPS_PROXY"]
startup_timeout_sec = 20
tool_timeout_sec = 90
disabled_tools = ["resolve-library-id"]

[mcp_servers.figma]
url = "https://mcp.figma.com/mcp"
bearer_token_env_var = "FIGMA_OAUTH_TOKEN"
http_headers = { "X-Figma-Region" = "us-east-1" }
enabled = false
`;
    const { entries, warnings } = parseCodexConfig(text, file);
    expect(warnings).toEqual([]);
    expect(entries.map((e) => e.entry)).toEqual([
      {
        name: 'context7',
        command: 'npx',
        args: ['-y', '@upstash/context7-mcp'],
        env: { API_KEY: 'k$$1', HTTPS_PROXY: '${HTTPS_PROXY}' },
        timeouts: { startup: 20, request: 90 },
        tools: { exclude: ['resolve-library-id'] },
      },
      {
        name: 'figma',
        url: 'https://mcp.figma.com/mcp',
        enabled: false,
        headers: { 'X-Figma-Region': 'us-east-1' },
        auth: { type: 'bearer', token: '${FIGMA_OAUTH_TOKEN}' },
      },
    ]);
    expect(entries[0]?.source).toBe(`codex:${file}`);
  });

  it('returns nothing for a file without servers and rejects bad TOML with its position', () => {
    expect(parseCodexConfig('model = "o3"\n', file)).toEqual({ entries: [], warnings: [] });
    const e = thrown(() => parseCodexConfig('[mcp_servers.a]\ncommand = "npx\n', file));
    expect(e.code).toBe('CONFIG_INVALID');
    expect(e.message).toMatch(/^\/home\/me\/\.codex\/config\.toml:2:\d+: .+\. Fix the TOML there\.$/);
  });
});

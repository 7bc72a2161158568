import { describe, expect, it } from 'vitest';
import { parseAddArgs, parseKeyValue } from '../../src/cli/add-command.js';
import { UsageError } from '../../src/cli/cli-context.js';

describe('parseAddArgs', () => {
  it('takes everything after -- as the command, options before it as ours', () => {
    expect(
      parseAddArgs(['fs', '--env', 'A=1', '--env', 'B=x=y', '--', 'npx', '-y', 'pkg', '--flag']),
    ).toEqual({
      name: 'fs',
      fields: { command: 'npx', args: ['-y', 'pkg', '--flag'], env: { A: '1', B: 'x=y' } },
      user: false,
      force: false,
    });
    expect(parseAddArgs(['s', '--user', '--force', '--', 'server'])).toEqual({
      name: 's',
      fields: { command: 'server' },
      user: true,
      force: true,
    });
  });

  it('takes a URL with headers and a transport', () => {
    expect(
      parseAddArgs(['gh', 'https://h/mcp', '--header', 'Authorization=Bearer ${T}', '--transport', 'sse']),
    ).toEqual({
      name: 'gh',
      fields: { url: 'https://h/mcp', transport: 'sse', headers: { Authorization: 'Bearer ${T}' } },
      user: false,
      force: false,
    });
  });

  it('refuses what does not fit, saying how to write it', () => {
    const cases: [string[], string][] = [
      [[], 'needs a server name'],
      [['fs'], 'needs a URL, or a command after --'],
      [['fs', 'npx', '-y'], 'Unknown option'],
      [['fs', 'npx', 'pkg'], 'put it after --: switchboard add fs -- npx pkg'],
      [['fs', '--'], 'Nothing follows --'],
      [['fs', 'https://h', '--', 'npx'], 'either a URL or a command'],
      [['fs', '--header', 'A=1', '--', 'npx'], '--header is for a remote server'],
      [['fs', 'https://h', '--env', 'A=1'], '--env is for a command'],
      [['fs', 'https://h', '--transport', 'stdio'], '--transport takes http or sse'],
      [['fs', '--transport', 'http', '--', 'npx'], 'A command runs over stdio'],
      [['fs', '--env', 'NOVALUE', '--', 'npx'], '--env takes KEY=VALUE'],
    ];
    for (const [args, message] of cases) expect(() => parseAddArgs(args), args.join(' ')).toThrow(message);
    expect(() => parseKeyValue('=v', '--header')).toThrow(UsageError);
    expect(() => parseAddArgs(['fs', '--bogus', '--', 'npx'])).toThrow(UsageError);
  });
});

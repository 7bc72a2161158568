import { describe, expect, it } from 'vitest';
import { commandCandidates } from '../../../src/cli/doctor/command-lookup.js';

describe('commandCandidates', () => {
  it('tries a bare name in every PATH directory, in order', () => {
    expect(
      commandCandidates('node', { path: '/usr/local/bin::/usr/bin', cwd: '/p', platform: 'linux' }),
    ).toEqual(['/usr/local/bin/node', '/usr/bin/node']);
    expect(commandCandidates('node', { cwd: '/p', platform: 'linux' })).toEqual([]);
  });

  it('takes a command with a directory as it is, relative to the working directory', () => {
    expect(commandCandidates('./bin/server', { path: '/usr/bin', cwd: '/p', platform: 'linux' })).toEqual([
      '/p/bin/server',
    ]);
    expect(commandCandidates('/opt/s', { path: '/usr/bin', cwd: '/p', platform: 'darwin' })).toEqual([
      '/opt/s',
    ]);
  });

  it('adds .com and .exe on Windows unless the name has an extension', () => {
    expect(commandCandidates('node', { path: 'C:\\a;C:\\b', cwd: 'C:\\p', platform: 'win32' })).toEqual([
      'C:\\a\\node.com',
      'C:\\a\\node.exe',
      'C:\\b\\node.com',
      'C:\\b\\node.exe',
    ]);
    expect(commandCandidates('tool.cmd', { path: 'C:\\a', cwd: 'C:\\p', platform: 'win32' })).toEqual([
      'C:\\a\\tool.cmd',
    ]);
    expect(commandCandidates('bin\\s', { path: 'C:\\a', cwd: 'C:\\p', platform: 'win32' })).toEqual([
      'C:\\p\\bin\\s.com',
      'C:\\p\\bin\\s.exe',
    ]);
  });
});

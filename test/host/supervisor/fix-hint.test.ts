import { describe, expect, it } from 'vitest';
import { fixHint } from '../../../src/host/supervisor/fix-hint.js';

describe('fixHint', () => {
  const base = { name: 'gh', source: 'switchboard.json' };
  const log = 'logs/gh.log';

  it('says what to do about each state, and nothing for a healthy server', () => {
    expect(fixHint({ ...base, state: 'connected' }, log)).toBeUndefined();
    expect(fixHint({ ...base, state: 'connecting' }, log)).toBeUndefined();
    expect(fixHint({ ...base, state: 'reconnecting', error: { code: 'X', message: 'm' } }, log)).toBe(
      'see the log: logs/gh.log',
    );
    expect(fixHint({ ...base, state: 'needs_auth' }, log)).toBe('log in with: switchboard auth gh');
    expect(fixHint({ ...base, state: 'disabled' }, log)).toBe('enable it with: switchboard enable gh');
  });

  it('points a failed server at what its error calls for', () => {
    const failed = (code: string) =>
      fixHint({ ...base, state: 'failed', error: { code, message: 'm' } }, log);
    expect(failed('ENV_VAR_MISSING')).toBe(
      'set the variable and try again (the entry is in switchboard.json)',
    );
    expect(failed('SPAWN_FAILED')).toBe('correct the entry in switchboard.json (log: logs/gh.log)');
    expect(failed('CONNECT_TIMEOUT')).toContain('timeouts.connect');
    expect(failed('OTHER')).toBe('see the log: logs/gh.log');
    // An entry that does not normalize: fixed in its file, or registered again.
    const invalid = (source: string) =>
      fixHint({ name: 'gh', source, state: 'failed', error: { code: 'CONFIG_INVALID', message: 'm' } }, log);
    expect(invalid('/p/switchboard.json')).toBe('correct the entry in /p/switchboard.json');
    expect(invalid('jsonl')).toBe(
      'register it again with a valid entry, or remove it with: switchboard remove gh',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { referencedVariables, variableUses } from '../../../src/cli/doctor/variables.js';
import { normalizeServerEntry } from '../../../src/core/server-config.js';

describe('referencedVariables', () => {
  it('finds ${VAR}, $VAR and ${VAR:-default}, and skips $$', () => {
    expect(referencedVariables('a ${ONE} $TWO ${THREE:-x} $$FOUR ${FIVE:-}')).toEqual([
      { name: 'ONE', hasDefault: false },
      { name: 'TWO', hasDefault: false },
      { name: 'THREE', hasDefault: true },
      { name: 'FIVE', hasDefault: true },
    ]);
    expect(referencedVariables('plain text, $ 5')).toEqual([]);
  });
});

describe('variableUses', () => {
  it('names the field of every reference and whether it is set', () => {
    const stdio = normalizeServerEntry({
      name: 's',
      command: '${BIN_DIR}/server',
      args: ['--token', '$TOKEN'],
      env: { HOME_COPY: '${HOME}', EMPTY: '${EMPTY:-fallback}' },
      cwd: '${WORK}',
    });
    expect(variableUses(stdio, { BIN_DIR: '/opt', HOME: '/h', EMPTY: '' })).toEqual([
      { variable: 'BIN_DIR', field: 'command', hasDefault: false, set: true },
      { variable: 'TOKEN', field: 'args[1]', hasDefault: false, set: false },
      { variable: 'HOME', field: 'env.HOME_COPY', hasDefault: false, set: true },
      { variable: 'EMPTY', field: 'env.EMPTY', hasDefault: true, set: false },
      { variable: 'WORK', field: 'cwd', hasDefault: false, set: false },
    ]);
  });

  it('looks into the URL, headers and auth of a remote entry', () => {
    const http = normalizeServerEntry({
      name: 'h',
      url: 'https://${HOST}/mcp',
      headers: { Authorization: 'Bearer ${GH_TOKEN}' },
      auth: { type: 'oauth', clientId: 'c', clientSecret: '${SECRET}', scopes: ['${SCOPE}'] },
    });
    expect(variableUses(http, { HOST: 'h' }).map((u) => [u.variable, u.field, u.set])).toEqual([
      ['HOST', 'url', true],
      ['GH_TOKEN', 'headers.Authorization', false],
      ['SECRET', 'auth.clientSecret', false],
      ['SCOPE', 'auth.scopes[0]', false],
    ]);
  });
});

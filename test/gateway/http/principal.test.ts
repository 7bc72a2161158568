import { describe, expect, it } from 'vitest';
import { createPrincipal, grantsNothing } from '../../../src/gateway/http/principal.js';

describe('createPrincipal', () => {
  it('allows everything by default', () => {
    const p = createPrincipal({ id: 'x', kind: 'anonymous' });
    expect(p.allows('any')).toBe(true);
    expect(p.allows('any', 'tool')).toBe(true);
  });

  it('matches server globs, plain tool globs and server/tool globs', () => {
    const p = createPrincipal({
      id: 'ci',
      kind: 'token',
      grants: { servers: ['git*', 'fs'], tools: ['search_*', 'fs/read_?'] },
    });
    expect(p.allows('github', 'search_code')).toBe(true);
    expect(p.allows('github', 'delete_repo')).toBe(false);
    expect(p.allows('fs', 'read_a')).toBe(true);
    expect(p.allows('fs', 'read_ab')).toBe(false);
    expect(p.allows('fs', 'search_x')).toBe(true);
    expect(p.allows('github', 'read_a')).toBe(false);
    expect(p.allows('memory', 'search_x')).toBe(false);
    expect(p.allows('memory')).toBe(false);
    expect(p.allows('github')).toBe(true);
  });

  it('allows a server only when some tool glob can apply on it', () => {
    const p = createPrincipal({ id: 'p', kind: 'jwt', grants: { servers: ['*'], tools: ['fs/*'] } });
    expect(p.allows('fs')).toBe(true);
    expect(p.allows('github')).toBe(false);
    expect(p.allows('fs', 'anything')).toBe(true);
  });

  it('treats empty lists as nothing', () => {
    const none = createPrincipal({ id: 'n', kind: 'token', grants: { servers: [], tools: ['*'] } });
    expect(none.allows('fs')).toBe(false);
    expect(grantsNothing(none.grants)).toBe(true);
    expect(grantsNothing({ servers: ['*'], tools: [] })).toBe(true);
    expect(grantsNothing({ servers: ['fs'], tools: ['x'] })).toBe(false);
  });
});

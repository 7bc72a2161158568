import { describe, expect, it } from 'vitest';
import { DEFAULT_SANDBOX, type SandboxSetting } from '../../src/core/config/sandbox-config.js';
import { decideRegistrationSandbox, registrantOf } from '../../src/policy/registration-sandbox.js';

const OFF: SandboxSetting = { kind: 'off' };
const CUSTOM: SandboxSetting = {
  kind: 'profile',
  name: 'custom',
  profile: {
    read: ['/srv'],
    write: [],
    network: { kind: 'host' },
    env: [],
    limits: {},
    launcherCache: 'shared',
    backend: { kind: 'bubblewrap' },
  },
};

describe('decideRegistrationSandbox', () => {
  it('gives a registration that says nothing the default profile, whoever registers it', () => {
    for (const policy of ['required', 'optional'] as const)
      for (const by of ['person', 'agent'] as const)
        expect(decideRegistrationSandbox(undefined, policy, by)).toEqual({
          allowed: true,
          sandbox: DEFAULT_SANDBOX,
        });
  });

  it('keeps a profile the registration names', () => {
    expect(decideRegistrationSandbox(CUSTOM, 'required', 'agent')).toEqual({
      allowed: true,
      sandbox: CUSTOM,
    });
  });

  it('lets only a person, and only under "optional", run a registration unsandboxed', () => {
    expect(decideRegistrationSandbox(OFF, 'optional', 'person')).toEqual({ allowed: true, sandbox: OFF });
    const required = decideRegistrationSandbox(OFF, 'required', 'person');
    expect(required.allowed).toBe(false);
    expect(!required.allowed && required.reason).toMatch(/governance\.sandbox\.registrations/);
    const agent = decideRegistrationSandbox(OFF, 'optional', 'agent');
    expect(agent.allowed).toBe(false);
    expect(!agent.allowed && agent.reason).toMatch(/agent/);
  });
});

describe('registrantOf', () => {
  it('counts the API, JSON lines and the CLI as people, anything else (agents, the gateway) as an agent', () => {
    expect(['api', 'jsonl', 'cli'].map(registrantOf)).toEqual(['person', 'person', 'person']);
    expect(['agent', 'gateway', 'something-new', undefined].map(registrantOf)).toEqual([
      'agent',
      'agent',
      'agent',
      'agent',
    ]);
  });
});

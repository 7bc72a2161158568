import { describe, expect, it } from 'vitest';
import {
  closingLines,
  type DoctorReport,
  reportRows,
  skipped,
  verdict,
} from '../../../src/cli/doctor/report.js';

const base = { server: 'fs', transport: 'stdio', source: 'switchboard.json' } as const;

describe('doctor report', () => {
  it('is healthy without a failed step, and lists fixes of warnings once', () => {
    const report: DoctorReport = {
      ...base,
      steps: [
        { step: 'config', status: 'warn', detail: 'disabled', fix: 'enable it' },
        { step: 'tools', status: 'ok', detail: '3 tools', ms: 4.4 },
        { step: 'prompts', status: 'warn', detail: 'failed', fix: 'enable it' },
      ],
    };
    expect(verdict(report)).toEqual({ healthy: true, fixes: ['enable it'] });
    expect(closingLines(report)).toEqual(['"fs" works, with one thing to look at:', '  1. enable it']);
    expect(reportRows(report)).toEqual([
      ['warn', 'config', 'disabled', ''],
      ['ok', 'tools', '3 tools', '4 ms'],
      ['warn', 'prompts', 'failed', ''],
    ]);
  });

  it('is not healthy when a step failed, and numbers what to fix in order', () => {
    const report: DoctorReport = {
      ...base,
      steps: [
        { step: 'variables', status: 'fail', detail: 'X unset', fix: 'set X' },
        { step: 'command', status: 'fail', detail: 'missing', fix: 'install it' },
        ...skipped(['handshake'], 'skipped'),
      ],
    };
    expect(verdict(report)).toEqual({ healthy: false, fixes: ['set X', 'install it'] });
    expect(closingLines(report)).toEqual(['"fs" cannot be used. To fix:', '  1. set X', '  2. install it']);
    expect(reportRows(report).map((r) => r[0])).toEqual(['FAIL', 'FAIL', 'skip']);
  });

  it('says healthy when all is well', () => {
    expect(closingLines({ ...base, steps: [{ step: 'config', status: 'ok', detail: '' }] })).toEqual([
      '"fs" is healthy.',
    ]);
  });
});

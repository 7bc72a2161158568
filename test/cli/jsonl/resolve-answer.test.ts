import { describe, expect, it } from 'vitest';
import { decideResolve } from '../../../src/cli/jsonl/resolve-answer.js';

const approval = { id: 'a1', kind: 'approval' } as const;
const form = { id: 'e1', kind: 'elicitation', mode: 'form' } as const;
const url = { id: 'u1', kind: 'elicitation', mode: 'url' } as const;

describe('decideResolve', () => {
  it('maps approve, always and decline onto an approval', () => {
    expect(decideResolve(approval, { answer: 'approve' })).toEqual({
      ok: true,
      decision: { action: 'accept', always: false },
    });
    expect(decideResolve(approval, { answer: 'always' })).toEqual({
      ok: true,
      decision: { action: 'accept', always: true },
    });
    expect(decideResolve(approval, { answer: 'decline' })).toEqual({
      ok: true,
      decision: { action: 'decline', always: false },
    });
  });

  it('refuses elicitation answers and content on an approval, saying which answers fit', () => {
    for (const request of [{ answer: 'accept' as const }, {}, { answer: 'approve' as const, content: {} }]) {
      const outcome = decideResolve(approval, request);
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) {
        expect(outcome.error.code).toBe('INVALID_FIELD');
        expect(outcome.error.message).toContain('is an approval');
      }
    }
  });

  it('accepts a form with its content (content alone means accept), or declines it', () => {
    expect(decideResolve(form, { content: { api_key: 'k' } })).toEqual({
      ok: true,
      decision: { action: 'accept', always: false, content: { api_key: 'k' } },
    });
    expect(decideResolve(form, { answer: 'cancel' })).toEqual({
      ok: true,
      decision: { action: 'cancel', always: false },
    });
    expect(decideResolve(url, { answer: 'accept' })).toEqual({
      ok: true,
      decision: { action: 'accept', always: false },
    });
  });

  it('refuses approval answers, content with a decline, and content for a URL', () => {
    const cases = [
      [form, { answer: 'always' as const }, 'is an elicitation'],
      [form, {}, 'is an elicitation'],
      [form, { answer: 'decline' as const, content: { a: 1 } }, '"decline" sends nothing back'],
      [url, { content: { a: 1 } }, 'a URL elicitation has no form'],
    ] as const;
    for (const [item, request, text] of cases) {
      const outcome = decideResolve(item, request);
      expect(outcome.ok, text).toBe(false);
      if (!outcome.ok) expect(outcome.error.message).toContain(text);
    }
  });
});

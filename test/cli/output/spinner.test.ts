import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startSpinner } from '../../../src/cli/output/spinner.js';

function fakeStream(isTTY: boolean) {
  const writes: string[] = [];
  return { isTTY, columns: 40, writes, write: (chunk: string) => writes.push(chunk) };
}

describe('startSpinner', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('draws frames in place on a TTY and erases its line when stopped', () => {
    const stream = fakeStream(true);
    const spinner = startSpinner('connecting fs', { stream, intervalMs: 100 });
    expect(stream.writes).toEqual(['\r\u001b[K⠋ connecting fs']);
    vi.advanceTimersByTime(200);
    expect(stream.writes.slice(1)).toEqual(['\r\u001b[K⠙ connecting fs', '\r\u001b[K⠹ connecting fs']);
    spinner.update('connecting gh');
    expect(stream.writes.at(-1)).toBe('\r\u001b[K⠸ connecting gh');
    spinner.stop();
    expect(stream.writes.at(-1)).toBe('\r\u001b[K');
    const count = stream.writes.length;
    vi.advanceTimersByTime(1000);
    spinner.update('again');
    spinner.stop();
    expect(stream.writes.length).toBe(count);
  });

  it('cuts text to the terminal width', () => {
    const stream = fakeStream(true);
    startSpinner('x'.repeat(100), { stream }).stop();
    expect(stream.writes[0]).toBe(`\r\u001b[K⠋ ${'x'.repeat(36)}…`);
  });

  it('is silent off a TTY or when disabled', () => {
    const pipe = fakeStream(false);
    const spinner = startSpinner('connecting', { stream: pipe });
    vi.advanceTimersByTime(1000);
    spinner.update('still');
    spinner.stop();
    expect(pipe.writes).toEqual([]);
    const tty = fakeStream(true);
    startSpinner('connecting', { stream: tty, enabled: false }).stop();
    expect(tty.writes).toEqual([]);
  });
});

import type { ApiResultApp } from './api-types.js';

/**
 * The last result of each tool with an MCP App view, per dashboard session, so the Apps page
 * opens a view with what its tool last answered that caller. In memory and bounded: a
 * convenience of one process, never a record (the audit log is that).
 */
export class LastAppResults {
  private readonly kept = new Map<string, ApiResultApp & { readonly at: string }>();

  constructor(private readonly max = 500) {}

  /** Keeps `result` as `session`'s last of its tool. */
  note(session: string, result: ApiResultApp): void {
    const key = `${session}\u0000${result.tool}`;
    this.kept.delete(key);
    if (this.kept.size >= this.max) this.kept.delete(this.kept.keys().next().value as string);
    this.kept.set(key, { ...result, at: new Date().toISOString() });
  }

  /** `session`'s last result of the catalog tool `tool`, if any. */
  last(session: string, tool: string): (ApiResultApp & { readonly at: string }) | undefined {
    return this.kept.get(`${session}\u0000${tool}`);
  }
}

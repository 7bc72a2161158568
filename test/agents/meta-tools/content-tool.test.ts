import { describe, expect, it } from 'vitest';
import { contentToolDefinition } from '../../../src/agents/meta-tools/content-tool.js';

describe('contentToolDefinition', () => {
  it('is offered only when something offers resources or prompts', () => {
    expect(contentToolDefinition({ resources: false, prompts: false })).toBeUndefined();
  });

  it('declares only what exists: a uri for resources, a prompt and its arguments for prompts', () => {
    const props = (resources: boolean, prompts: boolean) =>
      Object.keys(
        (contentToolDefinition({ resources, prompts })!.inputSchema as { properties: object }).properties,
      );
    expect(props(true, false)).toEqual(['server', 'uri']);
    expect(props(false, true)).toEqual(['server', 'prompt', 'arguments']);
    expect(props(true, true)).toEqual(['server', 'uri', 'prompt', 'arguments']);
    expect(contentToolDefinition({ resources: true, prompts: false })!.description).not.toContain('prompt');
  });
});

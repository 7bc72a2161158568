import { describe, expect, it } from 'vitest';
import { qualifiedToolName, TOOL_NAME_PATTERN } from '../../../src/host/catalog/tool-names.js';

describe('qualifiedToolName', () => {
  it('prefixes server and tool', () => {
    expect(qualifiedToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
  });

  it('replaces characters LLM APIs refuse', () => {
    expect(qualifiedToolName('my.server', 'get weather/now')).toBe('mcp__my_server__get_weather_now');
    expect(qualifiedToolName('srv', 'héllo')).toMatch(TOOL_NAME_PATTERN);
  });

  it('keeps long names within 64 characters, stable and distinct', () => {
    const a = qualifiedToolName(
      'a-very-long-server-name-for-testing',
      'an_extremely_long_tool_name_that_goes_on_number_one',
    );
    const b = qualifiedToolName(
      'a-very-long-server-name-for-testing',
      'an_extremely_long_tool_name_that_goes_on_number_two',
    );
    expect(a).toMatch(TOOL_NAME_PATTERN);
    expect(a.length).toBe(64);
    expect(a).not.toBe(b);
    expect(
      qualifiedToolName(
        'a-very-long-server-name-for-testing',
        'an_extremely_long_tool_name_that_goes_on_number_one',
      ),
    ).toBe(a);
  });

  it('depends only on its own server and tool', () => {
    expect(qualifiedToolName('x', 'y')).toBe('mcp__x__y');
  });
});

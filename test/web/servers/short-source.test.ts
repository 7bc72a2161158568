import { describe, expect, it } from 'vitest';
import { shortSource } from '../../../web/servers/short-source.js';

describe('shortSource', () => {
  it('keeps the last two parts of a config path, on either separator', () => {
    expect(shortSource('/home/ana/project/switchboard.json')).toBe('…/project/switchboard.json');
    expect(shortSource('C:\\Users\\ana\\.switchboard\\config.json')).toBe('…/.switchboard/config.json');
  });

  it('leaves short paths and non-paths alone', () => {
    expect(shortSource('api')).toBe('api');
    expect(shortSource('store')).toBe('store');
    expect(shortSource('demo/switchboard.json')).toBe('demo/switchboard.json');
  });
});

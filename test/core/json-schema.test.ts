import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configJsonSchemaText } from '../../src/core/config/json-schema.js';

const file = join(dirname(fileURLToPath(import.meta.url)), '../../schema/switchboard.schema.json');

describe('configJsonSchema', () => {
  it('matches schema/switchboard.schema.json (run `npm run schema` after changing the config schema)', () => {
    expect(readFileSync(file, 'utf8')).toBe(configJsonSchemaText());
  });

  it('describes servers keyed by name, closed to unknown fields', () => {
    const schema = configJsonSchema() as {
      additionalProperties: boolean;
      properties: {
        servers: { propertyNames: { pattern: string }; additionalProperties: Record<string, unknown> };
      };
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.servers.propertyNames.pattern).toBe('^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$');
    const entry = schema.properties.servers.additionalProperties as {
      additionalProperties: boolean;
      properties: object;
    };
    expect(entry.additionalProperties).toBe(false);
    expect(Object.keys(entry.properties)).toContain('deferral');
    expect(Object.keys(entry.properties)).not.toContain('name');
  });
});

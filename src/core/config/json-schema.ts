import { z } from 'zod';
import { configFileSchema } from './config-file.js';

/**
 * The JSON Schema of Switchboard's config file, generated from the zod schema so the two
 * cannot drift. `schema/switchboard.schema.json` is this value, written by
 * `scripts/generate-schema.ts`; a test fails when the file on disk is stale.
 */
export function configJsonSchema(): Record<string, unknown> {
  // io: 'input' describes what people write (optional fields stay optional).
  const generated = z.toJSONSchema(configFileSchema, { io: 'input', target: 'draft-2020-12' });
  return { ...generated, title: 'Switchboard configuration' };
}

/** The schema as the text of `schema/switchboard.schema.json` (2-space indent, final newline). */
export function configJsonSchemaText(): string {
  return `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
}

/**
 * Writes schema/switchboard.schema.json from the zod config schema. Run after changing the
 * schema: `npm run schema`; test/core/json-schema.test.ts fails while the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configJsonSchemaText } from '../src/core/config/json-schema.js';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'schema', 'switchboard.schema.json');
writeFileSync(out, configJsonSchemaText());
console.log(`wrote ${out}`);

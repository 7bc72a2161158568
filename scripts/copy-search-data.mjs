// Copies the data files tool search loads at run time (src/agents/search/data) next to the
// compiled modules in dist, which tsc alone does not do.
import { cpSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
cpSync(join(root, 'src/agents/search/data'), join(root, 'dist/agents/search/data'), { recursive: true });

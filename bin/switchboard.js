#!/usr/bin/env node
// The `switchboard` command. In a clone of the repository it runs the TypeScript source
// through tsx, so no build step stands between `npm install` and `npx switchboard`, and what
// runs is always the code in the work tree; an installed package has no `src/` and runs the
// compiled `dist/`.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
let entry = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = source;
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));

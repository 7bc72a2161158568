#!/usr/bin/env node
// The `switchboard` command. An installed package runs the compiled `dist/`. In a clone of the
// repository, `npm install` compiled src/ into dist/ as well (scripts/build-cli.mjs), and that is
// run while it is current: while no file in src/ is newer than its stamp. Otherwise (a source
// edited since, or nothing compiled) the TypeScript source runs through tsx, so what runs is
// always the code in the work tree, never a stale build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const source = new URL('../src/cli/main.ts', import.meta.url);
let entry = new URL('../dist/cli/main.js', import.meta.url);
if (existsSync(source) && !compiledIsCurrent()) {
  const { register } = await import('tsx/esm/api');
  register();
  entry = source;
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));

/** True when dist/ was compiled from src/ after the last change to any file in it. */
function compiledIsCurrent() {
  let stamp;
  try {
    stamp = statSync(new URL('../dist/.source-stamp', import.meta.url)).mtimeMs;
  } catch {
    return false;
  }
  const src = fileURLToPath(new URL('../src/', import.meta.url));
  for (const entry of readdirSync(src, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    if (statSync(`${entry.parentPath ?? entry.path}/${entry.name}`).mtimeMs > stamp) return false;
  }
  return true;
}

// Compiles src/ into dist/ with esbuild, file by file, in a second or two: `npm install` runs it
// (prepare), so a clone's `npx switchboard` runs JavaScript instead of compiling TypeScript
// through a loader at every start (over a second a command). The sources are written for
// `isolatedModules`, so each file compiles alone exactly as tsx and vitest compile it. No type
// declarations: `npm run build` (tsc) makes the package's dist. dist/.source-stamp records when
// this ran; bin/switchboard.js runs dist/ only while no file in src/ is newer, so an edited
// source is never run stale (it runs through tsx until the next `npm run build:cli`).
import { cpSync, mkdirSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src');
const dist = join(root, 'dist');

// `npm pack` and `npm publish` run prepare too, after prepack's `npm run build`: the package's
// dist stays tsc's.
if (process.env.npm_command === 'pack' || process.env.npm_command === 'publish') process.exit(0);

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('build-cli: esbuild is not installed; npx switchboard runs the sources through tsx.');
  process.exit(0);
}

// Taken before compiling: a source saved meanwhile is newer than the stamp, so it counts as stale.
const started = new Date();
const entryPoints = readdirSync(src, { recursive: true })
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
  .map((file) => join(src, file));
await esbuild.build({
  entryPoints,
  outdir: dist,
  outbase: src,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  bundle: false,
  sourcemap: 'linked',
  logLevel: 'warning',
});
// The data files tool search loads at run time, as scripts/copy-search-data.mjs copies them.
cpSync(join(src, 'agents/search/data'), join(dist, 'agents/search/data'), { recursive: true });
mkdirSync(dist, { recursive: true });
const stamp = join(dist, '.source-stamp');
writeFileSync(stamp, `compiled from src/ by scripts/build-cli.mjs at ${started.toISOString()}\n`);
utimesSync(stamp, started, started);

// Bundles the dashboard (web/) into dist/web/: one ES module (app.js) with Preact inside, one
// stylesheet (styles.css, its @imports inlined), and the page and icon beside them. `npm install`
// runs it (prepare), so a clone serves /ui at once; the published package ships dist/web/ built.
// Run it alone with `npm run build:web`.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'web');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  // An install without dev dependencies (the published package) has dist/web/ already.
  console.warn('build-web: esbuild is not installed; the dashboard is not rebuilt.');
  process.exit(0);
}

const common = { bundle: true, minify: true, legalComments: 'none', logLevel: 'warning' };
await mkdir(out, { recursive: true });
await esbuild.build({
  ...common,
  entryPoints: [join(root, 'web', 'main.tsx')],
  outfile: join(out, 'app.js'),
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  sourcemap: true,
});
// The MCP Apps sandbox proxy: its own small script, served to the sandbox page under another origin.
await esbuild.build({
  ...common,
  entryPoints: [join(root, 'web', 'apps', 'sandbox-proxy.ts')],
  outfile: join(out, 'sandbox.js'),
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
});
await esbuild.build({
  ...common,
  entryPoints: [join(root, 'web', 'styles.css')],
  outfile: join(out, 'styles.css'),
  target: ['chrome110', 'firefox110', 'safari16'],
});
for (const file of ['index.html', 'icon.svg', 'sandbox.html'])
  await copyFile(join(root, 'web', file), join(out, file));

// Builds the demo of an installed package into dist/demo/: the demo servers of
// examples/servers/ bundled into plain JavaScript (their dependencies, the package's own
// runtime dependencies, stay imports), the sandbox folder, and a switchboard.json that runs
// them with node alone. A clone's `npm start` runs examples/demo/ from source with tsx, a dev
// dependency the installed package does not have. `npm run build` runs it.
import { cp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'examples', 'demo');
const out = join(root, 'dist', 'demo');

let esbuild;
try {
  esbuild = await import('esbuild');
} catch {
  console.warn('build-demo: esbuild is not installed; the packaged demo is not rebuilt.');
  process.exit(0);
}

// The filesystem server is a dev dependency of the repository, not of the package: the
// installed demo fetches the version the repository tests, once, through npx.
const filesystemVersion = JSON.parse(
  await readFile(
    join(root, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'package.json'),
    'utf8',
  ),
).version;

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'servers'), { recursive: true });
await esbuild.build({
  entryPoints: ['demo-weather', 'demo-elicitation'].map((name) =>
    join(root, 'examples', 'servers', `${name}.ts`),
  ),
  outdir: join(out, 'servers'),
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
});
await cp(join(source, 'sandbox'), join(out, 'sandbox'), { recursive: true });

const config = JSON.parse(await readFile(join(source, 'switchboard.json'), 'utf8'));
/** How each demo server runs from dist/demo/ (its cwd), by name. */
const runs = {
  weather: { command: 'node', args: ['servers/demo-weather.js'] },
  accounts: { command: 'node', args: ['servers/demo-elicitation.js'] },
  files: {
    command: 'npx',
    args: ['-y', `@modelcontextprotocol/server-filesystem@${filesystemVersion}`, 'sandbox'],
  },
};
const missing = Object.keys(config.servers).filter((name) => !(name in runs));
if (missing.length > 0) throw new Error(`build-demo: say how ${missing.join(', ')} run(s) in dist/demo.`);
// `start` sets SWITCHBOARD_DEMO_DIR to this folder; the clone's fallback path means nothing here.
for (const [name, run] of Object.entries(runs))
  Object.assign(config.servers[name], run, { cwd: '${SWITCHBOARD_DEMO_DIR:-.}' });
await writeFile(join(out, 'switchboard.json'), `${JSON.stringify(config, null, 2)}\n`);

// Links the package's own `switchboard` command into node_modules/.bin/ of a clone, so
// `npx switchboard …` runs it there as it does where the package is installed: npm links the
// bins of dependencies, never the root package's own (`npx` then finds no such command).
// `npm install` runs it (prepare). Windows needs npm's .cmd shims and is left out.
import { lstat, mkdir, readlink, rm, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const binDir = join(root, 'node_modules', '.bin');
const link = join(binDir, 'switchboard');
const target = join('..', '..', 'bin', 'switchboard.js');

if (process.platform !== 'win32') {
  const current = await lstat(link).then(
    (stat) => (stat.isSymbolicLink() ? readlink(link) : 'not a link'),
    () => undefined,
  );
  if (current !== target) {
    await mkdir(binDir, { recursive: true });
    if (current !== undefined) await rm(link, { force: true });
    await symlink(target, link);
  }
}

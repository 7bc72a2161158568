import { spawn } from 'node:child_process';

/**
 * Opens a URL in the user's browser with the platform's opener (`open` on macOS, `xdg-open`
 * elsewhere on Unix, `start` through cmd on Windows). Resolves `false` when there is no
 * opener (a headless machine): the caller then prints the URL instead. Never throws, never
 * keeps the process alive, and passes the URL as one argument (no shell on Unix).
 */
export function openBrowser(url: string): Promise<boolean> {
  const [command, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? // `start` is a cmd builtin; the empty title argument keeps a quoted URL from being read as one.
          ['cmd', ['/c', 'start', '""', url.replace(/&/g, '^&')]]
        : ['xdg-open', [url]];
  return new Promise((resolve) => {
    try {
      const child = spawn(command, args, { stdio: 'ignore', detached: true });
      child.once('error', () => resolve(false));
      child.once('spawn', () => {
        child.unref();
        resolve(true);
      });
    } catch {
      resolve(false);
    }
  });
}

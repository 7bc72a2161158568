/**
 * Whether a process of this machine is still running, for telling a lock or a temporary file
 * of a live writer from one left by a writer that died: signal 0 checks without signalling
 * (kill(2)). EPERM means it exists but belongs to another user: alive.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

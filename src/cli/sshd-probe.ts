import { connect } from 'node:net';

/**
 * Whether an SSH server answers at `host:port`: connects and reads its identification line
 * (RFC 4253 §4.2: "SSH-protoversion-softwareversion", possibly after other lines), sending
 * nothing. Resolves with that line, or undefined when nothing listens, something else does,
 * or no line comes within `timeoutMs`. Reads at most 8 KiB; never rejects.
 */
export function probeSshBanner(host: string, port: number, timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let received = '';
    const done = (banner: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(banner);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const lines = received.split('\n');
      for (const line of lines.slice(0, -1))
        if (line.startsWith('SSH-')) return done(line.replace(/\r$/, ''));
      if (received.length > 8192) done(undefined);
    });
    socket.on('error', () => done(undefined));
    socket.on('close', () => done(undefined));
  });
}

/** Where `switchboard start` looks for an sshd: `SWITCHBOARD_DEMO_SSHD` (host:port), else 127.0.0.1:22. */
export function demoSshdAddress(env: NodeJS.ProcessEnv): { host: string; port: number } {
  const raw = env.SWITCHBOARD_DEMO_SSHD;
  const match = raw === undefined ? null : /^([^:\s]+):(\d{1,5})$/.exec(raw);
  if (match !== null && Number(match[2]) > 0 && Number(match[2]) < 65_536)
    return { host: match[1]!, port: Number(match[2]) };
  return { host: '127.0.0.1', port: 22 };
}

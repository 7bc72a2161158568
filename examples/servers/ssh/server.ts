/**
 * `ssh`: an MCP server that works on remote hosts over SSH — saved aliases (a 0600 file with
 * no secrets), strict known_hosts checking with a first-use decision, key or password login
 * (the password asked for through elicitation), commands with sudo in three modes, SFTP
 * upload/download, files read, listed, searched and edited over SFTP as the login user, and
 * the diagnostics sysinfo and systemd. Connections and the secrets a person typed live in this process's memory
 * for fixed lifetimes. Settings and limits: settings.ts; the full description: docs/ssh-server.md.
 *
 *   node --import tsx examples/servers/ssh/server.ts     # speaks MCP on stdin/stdout
 */
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { AliasStore } from './aliases.js';
import { KnownHosts } from './known-hosts.js';
import { Sessions } from './sessions.js';
import { readSettings } from './settings.js';
import { registerSshTools } from './tools.js';

let sessions: Sessions;
try {
  const settings = readSettings();
  sessions = new Sessions(
    settings,
    new AliasStore(settings.aliasesFile),
    new KnownHosts(settings.knownHostsFile),
  );
} catch (error) {
  process.stderr.write(`ssh server: ${(error as Error).message}\n`);
  process.exit(2);
}

// One Sessions for the process: the stdio entry may build a server per protocol era, and the
// pool and the remembered secrets must be the same for both.
serveStdio(() => {
  const server = new McpServer(
    { name: 'ssh', version: '1.0.0' },
    {
      capabilities: { tools: {} },
      // A 2025 client gets each question as an elicitation/create request; a person who has
      // not answered in 5 minutes gets the call back as an error (2026-07-28 clients wait on
      // their own, the question being theirs to hold).
      inputRequired: { roundTimeoutMs: sessions.settings.askTimeoutMs },
      instructions:
        'Runs commands, reads, searches and edits files, transfers files and looks after services on remote hosts over SSH. Targets are alias names (list_aliases) or user@host[:port]. ' +
        'The file tools (read_file, list_files, grep_files, edit_file, replace_lines) work like local ones with a leading alias, as the login user. ' +
        'Passwords are asked of the person, never of you; do not put secrets in commands. For privileged writes use exec with sudo=true and tee/install.',
    },
  );
  registerSshTools(server, sessions);
  return server;
});

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    sessions.pool.closeAll();
    process.exit(0);
  });

/**
 * The filesystem tools — `read_file`, `list_files`, `grep_files`, `edit_file`, `replace_lines`
 * — over SFTP as the login user, never through sudo. Their output has one shape throughout:
 * lines numbered as `cat -n` prints them (read_file, and the diff hunks of the two edit tools),
 * a closing `[...]` note with the facts and what to call next, and the same facts as
 * `structuredContent`. Each takes a leading `alias`; otherwise they are what a local
 * filesystem toolset offers. Formats: docs/ssh-server.md.
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { type EditPlan, editRemote } from './edit-file.js';
import { replaceExact, replaceLines } from './edit-text.js';
import { grepRemote } from './grep-files.js';
import { listRemote } from './list-files.js';
import { readRemoteFile } from './read-file.js';
import { type RemoteFs, withRemoteFs } from './remote-fs.js';
import type { Sessions } from './sessions.js';
import { respond, Target, text } from './tool-kit.js';

const MAX_READ_LINES = 10_000;
const MAX_LIST_DEPTH = 10;
const MAX_GREP_RESULTS = 1_000;

/** Cuts a tool's text at `max` bytes on a line boundary, saying so. Pure. */
export function capText(value: string, max: number): string {
  if (Buffer.byteLength(value) <= max) return value;
  const cut = Buffer.from(value).subarray(0, max).toString('utf8');
  const kept = cut.slice(0, Math.max(0, cut.lastIndexOf('\n')));
  return `${kept}\n[output cut at ${max} bytes (SSH_MCP_OUTPUT_MAX); narrow the request]`;
}

const Version = z
  .string()
  .regex(/^[0-9a-f]{16}$/)
  .optional()
  .describe('The version read_file reported; the edit is refused if the file has changed since.');

/** Registers the five filesystem tools. */
export function registerFsTools(server: McpServer, sessions: Sessions): void {
  const { settings } = sessions;
  type View = { text: string; structured: Record<string, unknown> };
  /** Runs `work` on an SFTP session of the target, as one tool call: answer capped, errors mapped. */
  const onFiles = (ctx: ServerContext, alias: string, work: (fs: RemoteFs, host: string) => Promise<View>) =>
    respond(ctx, async (answers) => {
      const target = await sessions.target(alias);
      const connection = await sessions.connection(target, answers);
      const view = await withRemoteFs(connection, settings, (fs) => work(fs, target.key));
      return text(capText(view.text, settings.outputMaxBytes), view.structured);
    });
  const edit = (ctx: ServerContext, alias: string, plan: EditPlan) =>
    onFiles(ctx, alias, (fs, host) => editRemote(fs, settings, { locks: sessions.fileLocks, host }, plan));

  server.registerTool(
    'read_file',
    {
      title: 'Read a remote file',
      description:
        'Reads a text file on the host as the login user (SFTP). Lines come numbered like `cat -n` (number, tab, text), from offset (1-based, default 1) for limit lines (default 2000); ' +
        'a closing [note] gives the line range, total, size, line breaks, version (for edit_file/replace_lines expected_version), and the offset to read on when cut. ' +
        `Lines over 2000 characters are cut; output stops at ${settings.outputMaxBytes} bytes. Binary files are refused. Relative paths start in the login user's home.`,
      inputSchema: z.object({
        alias: Target,
        path: z.string().min(1),
        offset: z.number().int().min(1).optional(),
        limit: z.number().int().min(1).max(MAX_READ_LINES).optional(),
      }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ alias, path, offset, limit }, ctx) =>
      onFiles(ctx, alias, (fs) =>
        readRemoteFile(fs, settings, { path, offset: offset ?? 1, limit: limit ?? 2000 }),
      ),
  );

  server.registerTool(
    'list_files',
    {
      title: 'List a remote folder',
      description:
        'Lists a folder on the host as the login user (SFTP), one entry a line: kind (dir, file, link, other), size in bytes, modified time (UTC), path below the folder; symlinks show their target and are not followed. ' +
        `depth 1 (default) is the folder itself, up to ${MAX_LIST_DEPTH}; glob filters entries ("*.conf" matches names at any depth, "src/**/*.ts" paths). At most max_entries (default 500) with a note when cut.`,
      inputSchema: z.object({
        alias: Target,
        path: z.string().min(1).optional().describe("Default: the login user's home."),
        depth: z.number().int().min(1).max(MAX_LIST_DEPTH).optional(),
        glob: z.string().max(1000).optional(),
        max_entries: z.number().int().min(1).max(settings.transferMaxEntries).optional(),
      }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ alias, path, depth, glob, max_entries }, ctx) =>
      onFiles(ctx, alias, (fs) =>
        listRemote(fs, { path: path ?? '.', depth: depth ?? 1, glob, maxEntries: max_entries ?? 500 }),
      ),
  );

  server.registerTool(
    'grep_files',
    {
      title: 'Search remote files',
      description:
        'Finds lines matching a JavaScript regular expression in a file or below a folder on the host (SFTP, as the login user), as path:line:text. ' +
        'glob narrows the files ("*.py", "src/**/*.ts"); binary files, files over the size limit, symlinks and .git/.hg/.svn are skipped. ' +
        `Bounded: max_results (default 100, up to ${MAX_GREP_RESULTS}), ${settings.grepMaxFiles} files, ${settings.grepMaxBytes} bytes per search; a note says which bound stopped it.`,
      inputSchema: z.object({
        alias: Target,
        pattern: z.string().min(1).max(4096),
        path: z.string().min(1).optional().describe("A file or folder; default: the login user's home."),
        glob: z.string().max(1000).optional(),
        ignore_case: z.boolean().optional(),
        max_results: z.number().int().min(1).max(MAX_GREP_RESULTS).optional(),
      }),
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    ({ alias, pattern, path, glob, ignore_case, max_results }, ctx) =>
      onFiles(ctx, alias, (fs) =>
        grepRemote(fs, settings, {
          pattern,
          path: path ?? '.',
          glob,
          ignoreCase: ignore_case ?? false,
          maxResults: max_results ?? 100,
        }),
      ),
  );

  server.registerTool(
    'edit_file',
    {
      title: 'Edit a remote file',
      description:
        "Replaces old_string with new_string in a text file on the host, as the login user (SFTP, never sudo). old_string must match exactly (whitespace included, without read_file's line numbers) and occur once, unless replace_all. " +
        'An empty old_string creates a file that does not exist. The file is written atomically, keeping its mode and owner; answers with the changed lines as numbered diff hunks and the new version.',
      inputSchema: z.object({
        alias: Target,
        path: z.string().min(1),
        old_string: z.string(),
        new_string: z.string(),
        replace_all: z.boolean().optional(),
        expected_version: Version,
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ alias, path, old_string, new_string, replace_all, expected_version }, ctx) =>
      edit(ctx, alias, {
        path,
        expectedVersion: expected_version,
        apply: (data) => replaceExact(data, old_string, new_string, replace_all ?? false),
        ...(old_string === '' && { createWith: Buffer.from(new_string, 'utf8') }),
      }),
  );

  server.registerTool(
    'replace_lines',
    {
      title: 'Replace lines of a remote file',
      description:
        'Replaces lines start_line..end_line (1-based, inclusive, as read_file numbers them) of a text file on the host with new_text (its lines; "" deletes them). end_line = start_line - 1 inserts before start_line. ' +
        'Pass expected_version from your read_file so the edit is refused if the file changed since (line numbers would be stale). Written atomically as the login user; answers with the changed region, numbered.',
      inputSchema: z.object({
        alias: Target,
        path: z.string().min(1),
        start_line: z.number().int().min(1),
        end_line: z.number().int().min(0),
        new_text: z.string(),
        expected_version: Version,
      }),
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
    },
    ({ alias, path, start_line, end_line, new_text, expected_version }, ctx) =>
      edit(ctx, alias, {
        path,
        expectedVersion: expected_version,
        apply: (data) => replaceLines(data, start_line, end_line, new_text),
      }),
  );
}

import { platform } from 'node:os';
import { resolve } from 'node:path';
import { discoverImports } from '../config-files/discover-imports.js';
import { userConfigPath } from '../config-files/load-config.js';
import { IMPORT_CLIENTS, readImportFile } from '../config-files/read-import.js';
import { addSecrets, readSecretsEnv, secretsEnvPath } from '../config-files/secrets-env.js';
import { writeServerEntries } from '../config-files/write-entries.js';
import type { ImportClient, ImportedEntry } from '../core/config/imports/import-entry.js';
import { extractSecrets, type MovedSecret } from '../core/config/imports/secret-values.js';
import { SwitchboardError } from '../core/errors.js';
import { parseVerbArgs } from './arguments/verb-options.js';
import { type CliContext, EXIT, type ExitCode, UsageError } from './cli-context.js';
import { openSetup } from './configured-servers.js';
import { renderTable } from './output/table.js';

/**
 * `switchboard import <client> [--path FILE] [--dry-run] [--user]`: carries another client's
 * MCP servers over into our config. Its config files are found where that client keeps them
 * (or read from `--path`); names Switchboard already has are skipped with a note, never
 * overwritten; what the importer could not carry over is listed as warnings.
 */
export const IMPORT_USAGE = `usage: switchboard import <${IMPORT_CLIENTS.join('|')}> [--path FILE] [--dry-run] [--user]
  Imports the MCP servers of another client into ./switchboard.json (or the user config with
  --user), from where that client keeps its config or from --path FILE. Servers whose name is
  already configured are skipped. --dry-run shows what would be imported and writes nothing.
  Secrets (tokens, keys, passwords in env, headers, arguments, URLs) are not written into the
  config: it refers to them as \${VAR}, and their values go to secrets.env in the data dir.`;

/** One server of the import and what happens to it. */
interface Planned {
  readonly name: string;
  readonly source: string;
  readonly entry: ImportedEntry['entry'];
  readonly skip?: string;
}

export async function importCommand(ctx: CliContext): Promise<ExitCode> {
  const { values, positionals } = parseVerbArgs(ctx.args, {
    path: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    user: { type: 'boolean', default: false },
  });
  const client = positionals[0];
  if (client === undefined || positionals.length > 1)
    throw new UsageError(`import takes one client: ${IMPORT_CLIENTS.join(', ')}.`);
  if (!isClient(client))
    throw new UsageError(
      `"${client}" is not a client Switchboard imports from; use one of ${IMPORT_CLIENTS.join(', ')}.`,
    );
  const { files, entries, warnings } = await readClient(ctx, client, values.path);
  const target = values.user ? userConfigPath(ctx.homeDir) : ctx.projectFile;

  const view = await openSetup(ctx);
  const known = new Map(view.servers.map((s) => [s.name, s.source]));
  await view.close();
  const seen = new Set<string>();
  const plan: Planned[] = entries.map(({ entry, source }) => {
    const { name } = entry;
    const base = { name, source, entry };
    if (known.has(name)) return { ...base, skip: `already configured (${known.get(name)})` };
    if (seen.has(name)) return { ...base, skip: 'a server of this name comes first in this import' };
    seen.add(name);
    return base;
  });
  // Secrets go to the data dir's secrets.env, the entries refer to them: no token is written
  // into a config file a person may commit, nor shown by --dry-run.
  const held = await readSecretsEnv(ctx.dataDir);
  const moved: (MovedSecret & { readonly server: string })[] = [];
  const planned = plan.map((p) => {
    if (p.skip !== undefined) return p;
    const taken = (variable: string, value: string) =>
      (held[variable] !== undefined && held[variable] !== value) ||
      moved.some((m) => m.variable === variable && m.value !== value);
    const { entry, secrets } = extractSecrets(p.entry, taken);
    moved.push(...secrets.map((s) => ({ ...s, server: p.name })));
    return { ...p, entry };
  });
  const chosen = planned.filter((p) => p.skip === undefined);
  const secretsFile = secretsEnvPath(ctx.dataDir);
  if (!values['dry-run'] && chosen.length > 0) {
    if (moved.length > 0)
      await addSecrets(ctx.dataDir, Object.fromEntries(moved.map((m) => [m.variable, m.value])));
    await writeServerEntries(
      target,
      chosen.map((p) => p.entry),
      { existing: 'keep' },
    );
  }
  report(ctx, {
    client,
    files,
    target,
    dryRun: values['dry-run'],
    plan: planned,
    warnings,
    secrets: moved,
    secretsFile,
  });
  return EXIT.ok;
}

function isClient(name: string): name is ImportClient {
  return (IMPORT_CLIENTS as readonly string[]).includes(name);
}

/** The client's entries from `--path`, or from every file of it that exists. */
async function readClient(
  ctx: CliContext,
  client: ImportClient,
  path: string | undefined,
): Promise<{ files: string[]; entries: readonly ImportedEntry[]; warnings: string[] }> {
  if (path !== undefined) {
    const file = resolve(path);
    const result = await readImportFile(client, file, { projectDir: ctx.projectDir });
    return { files: [file], entries: result.entries, warnings: [...result.warnings] };
  }
  const found = (
    await discoverImports({
      projectDir: ctx.projectDir,
      homeDir: ctx.homeDir,
      platform: platform(),
      ...(ctx.env.APPDATA && { appData: ctx.env.APPDATA }),
    })
  ).filter((d) => d.client === client);
  if (found.length === 0) {
    throw new SwitchboardError(
      'NOT_FOUND',
      `No ${client} config was found where ${client} keeps it. Pass its file with --path FILE.`,
      { details: { client } },
    );
  }
  const broken = found.find((d) => d.error !== undefined);
  if (broken && found.every((d) => d.error !== undefined)) {
    throw new SwitchboardError('CONFIG_INVALID', broken.error!, { details: { file: broken.file } });
  }
  // Project files come first in discovery order, so a project's server wins over a user one.
  return {
    files: found.map((d) => d.file),
    entries: found.flatMap((d) => d.entries),
    warnings: found.flatMap((d) => [...d.warnings, ...(d.error ? [`${d.file}: ${d.error}`] : [])]),
  };
}

function report(
  ctx: CliContext,
  r: {
    client: ImportClient;
    files: readonly string[];
    target: string;
    dryRun: boolean;
    plan: readonly Planned[];
    warnings: readonly string[];
    secrets: readonly (MovedSecret & { readonly server: string })[];
    secretsFile: string;
  },
): void {
  // Where each secret went, never its value.
  const secrets = r.secrets.map(({ server, field, variable }) => ({ server, field, variable }));
  const imported = r.plan.filter((p) => p.skip === undefined);
  const skipped = r.plan.filter((p) => p.skip !== undefined);
  if (ctx.json) {
    ctx.out(
      JSON.stringify({
        client: r.client,
        files: r.files,
        target: r.target,
        dryRun: r.dryRun,
        imported: imported.map(({ name, source, entry: { name: _n, ...entry } }) => ({
          name,
          source,
          entry,
        })),
        skipped: skipped.map(({ name, source, skip }) => ({ name, source, reason: skip })),
        secrets,
        ...(secrets.length > 0 && { secretsFile: r.secretsFile }),
        warnings: r.warnings,
      }),
    );
    return;
  }
  const describe = (p: Planned) =>
    p.entry.url ?? [p.entry.command, ...(p.entry.args ?? [])].filter((x) => x !== undefined).join(' ');
  if (r.plan.length > 0) {
    const rows = [
      ['NAME', 'ACTION', 'SERVER'],
      ...r.plan.map((p) => [p.name, p.skip ? 'skip' : r.dryRun ? 'would import' : 'import', describe(p)]),
    ];
    for (const line of renderTable(rows)) ctx.out(line);
  }
  for (const p of skipped) ctx.err(`Skipped "${p.name}": ${p.skip}.`);
  for (const w of r.warnings) ctx.err(`Warning: ${w}`);
  if (ctx.quiet) return;
  const from = r.files.join(', ');
  if (imported.length === 0) ctx.err(`Nothing to import from ${from}.`);
  else if (r.dryRun) ctx.err(`Would import ${imported.length} server(s) from ${from} into ${r.target}.`);
  else ctx.err(`Imported ${imported.length} server(s) from ${from} into ${r.target}.`);
  if (secrets.length > 0) {
    const list = secrets.map((s) => `${s.server} ${s.field} → \${${s.variable}}`).join(', ');
    ctx.err(
      r.dryRun
        ? `Would keep ${secrets.length} secret(s) out of ${r.target} (${list}), in ${r.secretsFile} (owner-only).`
        : `Kept ${secrets.length} secret(s) out of ${r.target}: ${list}. Their values are in ${r.secretsFile} ` +
            '(owner-only), which Switchboard reads with this data dir; a variable set in the environment wins.',
    );
  }
}

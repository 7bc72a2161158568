/**
 * Rewrites variable references of other clients into Switchboard's `${VAR}` syntax, so an
 * imported value means what it meant where it came from:
 * - `literal` clients (Claude Desktop, Codex) expand nothing: every `$` becomes `$$`.
 * - `shell` clients (Claude Code) expand `${VAR}` and `${VAR:-default}`, as we do; any other
 *   `$` is literal there, so it becomes `$$`.
 * - `editor` clients (VS Code, Cursor, Windsurf) write `${env:VAR}`, `${userHome}`,
 *   `${workspaceFolder}` and, in VS Code, `${input:id}` (a prompt we cannot show: it becomes
 *   `${ID}` and a warning names the variable to set).
 */

export type VariableStyle = 'literal' | 'shell' | 'editor';

/** What the rewrite needs to know, and where it reports what it could not carry over. */
export interface VariableContext {
  readonly style: VariableStyle;
  /** The project directory, for `${workspaceFolder}`; left as a warning when unknown. */
  readonly projectDir?: string;
  /** VS Code input descriptions by id, for the warning text. */
  readonly inputs?: Readonly<Record<string, string | undefined>>;
  /** Receives one sentence per reference that needs the user's attention. */
  readonly warn: (message: string) => void;
}

const REFERENCE = /\$\{([^}]*)\}|\$/g;
const SHELL_VAR = /^[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?$/;

/** The environment variable name a VS Code input id becomes: `github-token` → `GITHUB_TOKEN`. */
export function inputVariableName(id: string): string {
  const name = id.replace(/[^A-Za-z0-9_]/g, '_').toUpperCase();
  return /^[A-Z_]/.test(name) ? name : `_${name}`;
}

/** Rewrites one string value; `where` names it in warnings ("server "gh", env.TOKEN"). */
export function convertVariables(value: string, where: string, ctx: VariableContext): string {
  return value.replace(REFERENCE, (match, inner: string | undefined) => {
    if (inner === undefined || ctx.style === 'literal') return match === '$' ? '$$' : `$$${match.slice(1)}`;
    if (ctx.style === 'shell') return SHELL_VAR.test(inner) ? match : `$$${match.slice(1)}`;
    return convertEditorReference(inner, match, where, ctx);
  });
}

function convertEditorReference(inner: string, match: string, where: string, ctx: VariableContext): string {
  const [kind, ...rest] = inner.split(':');
  const argument = rest.join(':');
  if (kind === 'env' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(argument)) return `\${${argument}}`;
  if (kind === 'userHome' && rest.length === 0) return '${HOME}';
  if (kind === 'input' && argument) {
    const variable = inputVariableName(argument);
    const description = ctx.inputs?.[argument];
    ctx.warn(
      `${where}: \${input:${argument}}${description ? ` ("${description}")` : ''} became \${${variable}}; ` +
        `set ${variable} in the environment before the server starts.`,
    );
    return `\${${variable}}`;
  }
  if (kind === 'workspaceFolder' && rest.length === 0) {
    if (ctx.projectDir !== undefined) return ctx.projectDir.replaceAll('$', () => '$$');
    ctx.warn(
      `${where}: \${workspaceFolder} is unknown here and was kept as literal text; replace it with a path.`,
    );
    return `$$${match.slice(1)}`;
  }
  ctx.warn(`${where}: ${match} has no Switchboard equivalent and was kept as literal text; replace it.`);
  return `$$${match.slice(1)}`;
}

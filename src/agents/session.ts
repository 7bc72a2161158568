import type { CallToolResult } from '@modelcontextprotocol/client';
import type { ToolCallOptions } from '../client/connection-types.js';
import { normalizeToolResult, type ToolResult } from '../client/results.js';
import { describeError, isSwitchboardError, SwitchboardError } from '../core/errors.js';
import { isModelVisible } from '../core/mcp-apps.js';
import type { Deferral } from '../core/server-config.js';
import { type AppReference, appReferenceOf } from '../host/apps/app-views.js';
import { qualifiedToolName } from '../host/catalog/tool-names.js';
import type { Host } from '../host/host.js';
import type { ApprovalMode } from '../policy/decide.js';
import { type AgentToolOutput, toAgentToolOutput } from './adapters/tool-output.js';
import { injectMcpList, type ListedServer, renderMcpList } from './mcp-list.js';
import { runConfigTool } from './meta-tools/config-tools.js';
import { contentToolDefinition, MCP_CONTENT_NAME, runContentTool } from './meta-tools/content-tool.js';
import type { MetaContext } from './meta-tools/context.js';
import { ACTIVATE_TOOLS, CONFIG_TOOLS, SEARCH_TOOLS } from './meta-tools/definitions.js';
import { errorOutcome, jsonOutcome } from './meta-tools/outcome.js';
import { messagesOf, missingArguments, promptArguments } from './meta-tools/prompts-tool.js';
import { runSearchTool } from './meta-tools/search-tool.js';
import { MCP_SKILLS_NAME, runSkillsTool, SKILLS_TOOL, visibleSkills } from './meta-tools/skills-tool.js';
import { listedSkill, renderSkillList } from './skill-list.js';
import { parseSlashCommand } from './slash-commands.js';
import { type AgentTool, CONFIG_GROUP, effectiveToolSet, isLoaded } from './tool-set.js';

/**
 * One agent's view of the host: which tools it sees this round (lazy loading with persisted
 * grants), the meta-tools that load more, and one `execute` for every tool call a model makes.
 * A sub-agent gets its own stack frame: it starts with no grants of its own, and its grants
 * are deleted when it ends. Policy, approvals and audit are per root session.
 */

/**
 * A tool call's outcome: the result, its text for a model (media saved and linked), and the
 * form the provider adapters turn into a tool-result message.
 */
export interface AgentCallOutcome {
  readonly result: ToolResult;
  readonly text: string;
  readonly output: AgentToolOutput;
  /**
   * The tool's MCP App view, when it has one and the call ran: what an embedding UI renders
   * the result with (its server, the tool and the `ui://` resource). The model is given the
   * result's text as ever; the view is for the person.
   */
  readonly app?: AppReference;
}

export class AgentSession {
  private constructor(
    readonly host: Host,
    /** The root session's id: policy, "always allow" and audit go by it. */
    readonly id: string,
    /** `''` for the root agent; the sub-agent's frame id otherwise. */
    readonly frame: string,
  ) {}

  /** The root session `id` (its grants, persisted, are picked up again after a restart). */
  static open(host: Host, id: string): AgentSession {
    return new AgentSession(host, id, '');
  }

  /** A sub-agent's frame inside this session; it starts with no grants. */
  subAgent(frame: string): AgentSession {
    if (frame === '') {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        "A sub-agent frame needs a non-empty id; pass the sub-agent's own id (the root agent is the session itself).",
      );
    }
    return new AgentSession(this.host, this.id, frame);
  }

  /** Ends the frame (its grants are deleted) or, for the root, the whole session's grants. */
  async end(): Promise<void> {
    const removed =
      this.frame === ''
        ? await this.host.grants.endSession(this.id)
        : await this.host.grants.endFrame(this.id, this.frame);
    // Its acting windows on skills end with it (the root's: every frame's).
    this.host.skills.held.release(this.id, this.frame === '' ? undefined : this.frame);
    await this.host.governor.note({
      action: 'end',
      session: this.id,
      details: { frame: this.frame, grantsRemoved: removed },
    });
  }

  /** The approval mode of this session from now on (`read-only`, `auto-edit`, `full-auto`). */
  setMode(mode: ApprovalMode): void {
    this.host.governor.setMode(this.id, mode);
  }

  /** The groups granted to this frame (server names, or `config`). */
  async granted(): Promise<Set<string>> {
    return new Set((await this.host.grants.list(this.id, this.frame)).map((g) => g.group));
  }

  /** Grants groups to this frame; unknown and hidden names are refused, not stored. */
  async activate(groups: readonly string[]): Promise<{ activated: string[]; unknown: string[] }> {
    const visible = new Set(this.visibleServers());
    const activated: string[] = [];
    const unknown: string[] = [];
    for (const group of groups) {
      if (group === CONFIG_GROUP || visible.has(group)) {
        await this.host.grants.grant({ session: this.id, frame: this.frame, group });
        await this.host.governor.note({
          action: 'grant',
          session: this.id,
          ...(group !== CONFIG_GROUP && { server: group }),
          details: { group, frame: this.frame },
        });
        activated.push(group);
      } else unknown.push(group);
    }
    return { activated, unknown };
  }

  /** The tools to hand the model this round. */
  async tools(): Promise<AgentTool[]> {
    const catalog = this.host.catalog();
    const metaTools = [ACTIVATE_TOOLS, SEARCH_TOOLS];
    const content = contentToolDefinition({
      resources: catalog.resources.length > 0 || catalog.resourceTemplates.length > 0,
      prompts: catalog.prompts.length > 0,
    });
    if (content) metaTools.push(content);
    if (visibleSkills(this.metaContext()).length > 0) metaTools.push(SKILLS_TOOL);
    const granted = await this.granted();
    // Tools policy denies outright are left out: a model could only fail with them.
    const denied = new Set<string>();
    for (const tool of catalog.tools) {
      if (!isLoaded(tool, this.deferralOf(tool.server), granted)) continue;
      if ((await this.host.governor.decision(tool, this.id)).verdict === 'deny') denied.add(tool.name);
    }
    return effectiveToolSet({
      catalog: catalog.tools,
      deferralOf: (s) => this.deferralOf(s),
      granted,
      metaTools,
      configTools: CONFIG_TOOLS,
      denied: (tool) => denied.has(tool.name),
    });
  }

  /** The system-prompt block of servers, loaded and available. */
  async mcpList(): Promise<string> {
    const granted = await this.granted();
    const servers: ListedServer[] = this.host
      .servers()
      .filter((s) => this.deferralOf(s.name) !== 'hidden')
      .map((s) => {
        const config = this.host.serverConfig(s.name);
        const description = config?.description ?? config?.title;
        return {
          name: s.name,
          active: isLoaded({ server: s.name }, this.deferralOf(s.name), granted),
          tools: s.tools,
          ...(description !== undefined && { description }),
          ...(s.state !== 'connected' && { unavailable: true }),
        };
      });
    const skills = renderSkillList(
      visibleSkills(this.metaContext()).map(({ server, item }) => listedSkill(server, item)),
    );
    const list = renderMcpList(servers, { configActive: granted.has(CONFIG_GROUP) });
    return skills === '' ? list : `${list}\n\n${skills}`;
  }

  /** `template` with `<!-- MCP_LIST -->` replaced by the current server list. */
  async systemPrompt(template: string): Promise<string> {
    return injectMcpList(template, await this.mcpList());
  }

  /**
   * Runs one tool call a model made: a meta-tool here, a catalog tool on its server (policy,
   * approvals and audit on the way). Failures come back as error results the model can read,
   * never as exceptions, except a cancelled call.
   */
  async execute(
    name: string,
    args: Record<string, unknown>,
    options: Pick<ToolCallOptions, 'signal' | 'onProgress' | 'timeoutMs'> = {},
  ): Promise<AgentCallOutcome> {
    const meta = await this.runMeta(name, args, options.signal);
    if (meta) return this.outcome(normalizeToolResult(meta));
    const found = this.host.catalog().lookup(name);
    // An MCP App's own tool is not a model's to call (SEP-1865 §Visibility): unknown to it,
    // as it was never offered. Its view calls it through appCall.
    const tool = found && isModelVisible(found.tool) ? found : undefined;
    if (!tool || this.deferralOf(tool.server) === 'hidden') {
      // A tool of a server that is reconnecting: say so, so the model retries rather than
      // looking for another tool (a hidden server's tools stay unknown).
      const missing = tool || found ? undefined : this.host.whyMissing(name);
      const server = missing?.details.server;
      const retry =
        missing?.code === 'UPSTREAM_RECONNECTING' &&
        typeof server === 'string' &&
        this.deferralOf(server) !== 'hidden';
      return this.outcome(
        normalizeToolResult(
          errorOutcome(retry ? missing.message : `No tool "${name}". Use search_tools to find one.`),
        ),
      );
    }
    if (!isLoaded(tool, this.deferralOf(tool.server), await this.granted())) {
      return this.outcome(
        normalizeToolResult(
          errorOutcome(
            `${name} is not loaded. Call activate_tools with {"groups": ["${tool.server}"]} first; it is usable from your next step.`,
          ),
        ),
      );
    }
    try {
      const result = await this.host.callTool(name, args, { ...options, session: this.id });
      return this.outcome(result, appReferenceOf(tool));
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const code = isSwitchboardError(error) ? `${error.code}: ` : '';
      return this.outcome(normalizeToolResult(errorOutcome(`${code}${describeError(error)}`)));
    }
  }

  /**
   * Runs a call an MCP App's view made (its `tools/call`, through the embedding UI's bridge):
   * `app` is the reference the view was rendered from, `tool` the name the view knows, its
   * server's own. It reaches only the tools of the app's own server whose visibility includes
   * `"app"` (NOT_FOUND for a name that server lacks, POLICY_DENIED, audited, for a tool only a
   * model may call), loaded or not, under this session's policy, approvals and audit like any
   * call. Throws on failure: the view gets the error as its `tools/call` answer.
   */
  async appCall(
    app: Pick<AppReference, 'server'>,
    tool: string,
    args: Record<string, unknown>,
    options: Pick<ToolCallOptions, 'signal' | 'onProgress' | 'timeoutMs'> = {},
  ): Promise<ToolResult> {
    const entry = this.host.catalog().tools.find((t) => t.server === app.server && t.tool.name === tool);
    if (!entry) {
      throw new SwitchboardError(
        'NOT_FOUND',
        `Server "${app.server}" has no tool "${tool}" for its app to call; an app calls its own server's tools by their own names.`,
        { details: { server: app.server, tool } },
      );
    }
    return this.host.callTool(entry.name, args, {
      ...options,
      session: this.id,
      app: { server: app.server },
    });
  }

  /** The prompts of visible servers as slash commands (`/mcp__server__prompt`). */
  slashCommands(): { command: string; description?: string; arguments: string }[] {
    const visible = new Set(this.visibleServers());
    return this.host
      .catalog()
      .prompts.filter((p) => visible.has(p.server))
      .map(({ server, item }) => ({
        command: `/${qualifiedToolName(server, item.name)}`,
        ...(item.description !== undefined && { description: item.description }),
        arguments: (item.arguments ?? []).map((a) => `${a.name}${a.required ? '*' : '?'}`).join(', '),
      }));
  }

  /**
   * Runs a slash command line: the prompt's messages, roles kept, or undefined when the line
   * is not an MCP slash command. Unknown prompts and missing arguments are INVALID_ARGUMENT.
   */
  async runSlashCommand(line: string): Promise<{ role: string; text: string }[] | undefined> {
    const command = parseSlashCommand(line);
    if (!command) return undefined;
    const visible = new Set(this.visibleServers());
    const found = this.host
      .catalog()
      .prompts.find(
        (p) => visible.has(p.server) && qualifiedToolName(p.server, p.item.name) === command.name,
      );
    if (!found) {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `No prompt /${command.name}. The commands are: ${
          this.slashCommands()
            .map((c) => c.command)
            .join(', ') || '(none)'
        }.`,
      );
    }
    const given = promptArguments(command.args);
    if ('error' in given) throw new SwitchboardError('INVALID_ARGUMENT', given.error);
    const missing = missingArguments(found.item, given.values);
    if (missing.length > 0) {
      throw new SwitchboardError(
        'INVALID_ARGUMENT',
        `/${command.name} needs ${missing.join(', ')}: /${command.name} {${missing.map((m) => `"${m}": "…"`).join(', ')}}`,
      );
    }
    return messagesOf(await this.host.getPrompt(found.server, found.item.name, given.values));
  }

  private async outcome(result: ToolResult, app?: AppReference): Promise<AgentCallOutcome> {
    const rendered = await this.host.renderResult(result);
    return {
      result,
      text: rendered.text,
      output: toAgentToolOutput(result, { rendered }),
      ...(app && { app }),
    };
  }

  private async runMeta(
    name: string,
    args: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<CallToolResult | undefined> {
    const context = this.metaContext(signal);
    switch (name) {
      case ACTIVATE_TOOLS.name: {
        const groups = Array.isArray(args.groups) ? args.groups.filter((g) => typeof g === 'string') : [];
        if (groups.length === 0) return errorOutcome('"groups" must list server names (or "config").');
        const { activated, unknown } = await this.activate(groups);
        if (activated.length === 0)
          return errorOutcome(`No such group: ${unknown.join(', ')}. Groups: ${this.groups().join(', ')}.`);
        // The scope says how long the grant lasts: a root session's for the session (and
        // kept across restarts), a sub-agent's only until its frame ends.
        return jsonOutcome({
          activated,
          ...(unknown.length > 0 && { unknown }),
          scope:
            this.frame === '' ? { kind: 'session', session: this.id } : { kind: 'frame', frame: this.frame },
          note:
            this.frame === ''
              ? 'The tools are usable from your next step, for the rest of this session.'
              : 'The tools are usable from your next step, until this sub-agent ends.',
        });
      }
      case SEARCH_TOOLS.name:
        return runSearchTool(context, args, await this.granted(), (s) => this.deferralOf(s));
      case MCP_CONTENT_NAME:
        return runContentTool(context, args);
      case MCP_SKILLS_NAME:
        return runSkillsTool(context, args);
      default:
        if (CONFIG_TOOLS.some((t) => t.name === name)) {
          if (!(await this.granted()).has(CONFIG_GROUP)) {
            return errorOutcome(
              `${name} is in the "config" group; call activate_tools with ["config"] first.`,
            );
          }
          return runConfigTool(context, name, args);
        }
        return undefined;
    }
  }

  private metaContext(signal?: AbortSignal): MetaContext {
    return {
      host: this.host,
      session: this.id,
      frame: this.frame,
      visibleServers: () => this.visibleServers(),
      ...(signal && { signal }),
    };
  }

  private groups(): string[] {
    return [...this.visibleServers(), CONFIG_GROUP];
  }

  private visibleServers(): string[] {
    return this.host
      .servers()
      .map((s) => s.name)
      .filter((name) => this.deferralOf(name) !== 'hidden');
  }

  private deferralOf(server: string): Deferral {
    return this.host.serverConfig(server)?.deferral ?? 'deferred';
  }
}

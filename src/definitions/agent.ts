import { DELEGATION_PREFIX } from '../common/tool-naming.js';
import type { LanguageModel } from 'ai';
import { TollgateError } from '../common/errors.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import type { ToolNaming } from '../common/run-types.js';
import type { HistoryLimits } from '../common/continued-run.js';
import { toRules, type ApprovalPolicy } from './approval-policy.js';
import { checkConversationOptions, type ConversationOptions } from './conversation-options.js';
import { checkAgentBudget, type AgentBudget } from './budget-options.js';
import { TOOL_NAME, type Tool, type ToolExecutionContext } from './create-tool.js';

/** A request-level approval rule: `true` gates the call (SPEC §5). Throwing gates it too. */
export type ToolApprovalPolicy = (call: {
  /** The tool's key in `tools` (its id in runs started before tools were named by key). */
  toolName: string;
  args: JsonValue;
  requestContext: JsonObject;
}) => boolean | Promise<boolean>;

/** Defaults for every run of the agent; a request's own options win. */
export interface AgentDefaultOptions {
  /** Gate every call (`true`), none (`false`, the default), or decide per call. */
  requireToolApproval?: boolean | ToolApprovalPolicy;
  /** Model steps before the run stops. Default 10. */
  maxSteps?: number;
  /**
   * With `memory`, the next user message on a thread resumes a call parked by `suspend()`; the
   * model extracts the resume data per the tool's `resumeSchema`. Never grants an approval.
   * Default false.
   */
  autoResumeSuspendedTools?: boolean;
  /** Governance of every gated call of the agent; a tool's own `approval` fields win. */
  approval?: ApprovalPolicy;
}

/** What `beforeToolCall` sees; `context` is the call's execution context. */
export interface ToolHookCall {
  /** The tool's key in `tools` (its id in runs started before tools were named by key). */
  toolName: string;
  /** The tool's `id`. */
  toolId: string;
  input: unknown;
  context: ToolExecutionContext;
}

/** Worker-side hooks around every tool execution, after the gate. */
export interface AgentHooks {
  /** Return `{ proceed: false, output }` to skip the execution and use `output` as its result. */
  beforeToolCall?: (
    call: ToolHookCall,
  ) =>
    | void
    | { proceed: false; output: unknown }
    | Promise<void | { proceed: false; output: unknown }>;
  /** Sees the result or the error of every execution (skipped ones included). */
  afterToolCall?: (
    call: ToolHookCall & { output?: unknown; error?: unknown },
  ) => void | Promise<void>;
}

/** How the agent uses a thread's conversation (runs with `memory`). */
export interface MemoryOptions {
  /** Messages of the thread a run starts from (the most recent ones). Default 40. */
  lastMessages?: number;
}

/** Timing and retries of the agent's model steps. */
export interface ModelStepOptions {
  /** Limit of one model call, ms. Default 600000 (10 minutes). */
  timeoutMs?: number;
  /** A step whose worker stops heartbeating this long is retried elsewhere, ms. Default 60000. */
  heartbeatTimeoutMs?: number;
  /** Attempts in all. Default 3. */
  maximumAttempts?: number;
  /**
   * Largest result of one step (its text, tool calls and usage as JSON), bytes. A bigger step
   * fails the run at once with `PAYLOAD_TOO_LARGE` instead of being rejected by Temporal. Default
   * 1900000, under the server's default `limit.blobSize.error` (2 MiB); set it below your server's.
   */
  maxOutputBytes?: number;
}

/**
 * When a run's Temporal history is handed to a new execution (see docs/long-runs.md). Every
 * field is optional; the defaults suit Temporal's default limits.
 */
export type HistoryOptions = Partial<HistoryLimits>;

/** Where the agent's model steps run (see docs/local-execution.md). */
export interface AgentExecutionOptions {
  /**
   * `'local'`: each model step runs as a Temporal local activity in the worker that runs the
   * workflow, recorded as a marker instead of an activity's three events, with no round trip
   * through the server. A worker that dies mid-run reruns the steps since its last completed
   * workflow task. Default `'remote'`: an ordinary activity.
   */
  modelSteps?: 'local' | 'remote';
}

export interface AgentConfig {
  /** Stable id: runs, search attributes and `getAgent()` use it. */
  id: string;
  name?: string;
  description?: string;
  /** System prompt of every model step. */
  instructions?: string;
  /** Any AI SDK language model, or `'openai/<model>'` for the OpenAI provider (env: OPENAI_API_KEY, OPENAI_BASE_URL). */
  model: LanguageModel;
  /**
   * The agent's tools. Each key is the tool's name for the model, policies, hooks, chunks and the
   * audit (SPEC §1 "Tool names"); the tool's `id` identifies its definition.
   */
  tools?: Record<string, Tool>;
  /**
   * Sub-agents (supervisor pattern): each `key` is offered to the model as the tool `agent-<key>`
   * with input `{ message }`, and runs as a child workflow. Hosted by the same workers.
   */
  agents?: Record<string, Agent>;
  memory?: MemoryOptions;
  hooks?: AgentHooks;
  defaultOptions?: AgentDefaultOptions;
  modelStep?: ModelStepOptions;
  /** When long runs continue as new, and when a step too large for one history fails. */
  history?: HistoryOptions;
  /** Opt-in local execution of model steps; tools opt in with `createTool({ local: true })`. */
  execution?: AgentExecutionOptions;
  /** Compaction of long runs' conversations (docs/long-runs.md); absent: none. */
  conversation?: ConversationOptions;
  /** Limits on each run's tokens and cost, raised by a budget approval (docs/budgets.md). */
  budget?: AgentBudget;
}

/** Prefix of the tools through which a supervisor delegates to its sub-agents. */
export { DELEGATION_PREFIX };

export const DEFAULT_MAX_STEPS = 10;

const AGENT_ID = /^[a-zA-Z0-9._-]{1,128}$/;

/** An agent definition: model, instructions and tools. Lives on the worker that hosts it. */
export class Agent {
  readonly id: string;
  readonly name: string;
  readonly description: string | undefined;
  readonly instructions: string | undefined;
  readonly model: LanguageModel;
  readonly defaultOptions: AgentDefaultOptions;
  readonly modelStep: ModelStepOptions;
  readonly history: HistoryOptions;
  readonly execution: AgentExecutionOptions;
  readonly conversation: ConversationOptions | undefined;
  readonly budget: AgentBudget | undefined;
  readonly memory: MemoryOptions;
  readonly hooks: AgentHooks;
  /** Tools by the name the model sees: their key in `tools` (SPEC §1 "Tool names"). */
  readonly tools: ReadonlyMap<string, Tool>;
  /** Tools by `id`: the names of runs started before tools were named by key. */
  readonly toolsById: ReadonlyMap<string, Tool>;
  /** Sub-agents by the name of the tool that delegates to them (`agent-<key>`). */
  readonly subAgents: ReadonlyMap<string, Agent>;

  constructor(config: AgentConfig) {
    if (typeof config?.id !== 'string' || !AGENT_ID.test(config.id)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent id ${JSON.stringify(config?.id)} is invalid: use 1-128 letters, digits, '.', '_' or '-'.`,
      );
    }
    if (!config.model) {
      throw new TollgateError('INVALID_AGENT', `Agent "${config.id}" needs a model.`);
    }
    const maxSteps = config.defaultOptions?.maxSteps;
    if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${config.id}": defaultOptions.maxSteps must be a whole number of at least 1, not ${maxSteps}.`,
      );
    }
    const maxOutputBytes = config.modelStep?.maxOutputBytes;
    if (maxOutputBytes !== undefined && (!Number.isInteger(maxOutputBytes) || maxOutputBytes < 1)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${config.id}": modelStep.maxOutputBytes must be a whole number of bytes of at least 1, not ${maxOutputBytes}.`,
      );
    }
    this.id = config.id;
    this.name = config.name ?? config.id;
    this.description = config.description;
    this.instructions = config.instructions;
    this.model = config.model;
    this.defaultOptions = config.defaultOptions ?? {};
    this.modelStep = config.modelStep ?? {};
    this.history = checkHistoryOptions(config.id, config.history ?? {});
    this.execution = checkExecution(config.id, config.execution);
    this.conversation = checkConversationOptions(config.id, config.conversation, this.history);
    this.budget = checkAgentBudget(config.id, config.budget);
    this.memory = config.memory ?? {};
    this.hooks = config.hooks ?? {};
    toRules(this.defaultOptions.approval, `Agent "${config.id}": defaultOptions.approval`, 'agent');
    this.tools = indexTools(config.id, config.tools ?? {});
    this.toolsById = new Map([...this.tools.values()].map((tool) => [tool.id, tool]));
    this.subAgents = indexSubAgents(config.id, config.agents ?? {}, this.tools, this.toolsById);
  }

  /** The tools by the names a run gives them: by key, or by id for runs started before keys. */
  toolsNamedBy(naming: ToolNaming | undefined): ReadonlyMap<string, Tool> {
    return naming === 'key' ? this.tools : this.toolsById;
  }
}

function checkExecution(
  agentId: string,
  execution: AgentExecutionOptions | undefined,
): AgentExecutionOptions {
  const modelSteps = execution?.modelSteps;
  if (modelSteps !== undefined && modelSteps !== 'local' && modelSteps !== 'remote') {
    throw new TollgateError(
      'INVALID_AGENT',
      `Agent "${agentId}": execution.modelSteps must be 'local' or 'remote', not ${JSON.stringify(modelSteps)}.`,
    );
  }
  return { ...execution };
}

function indexSubAgents(
  agentId: string,
  agents: Record<string, Agent>,
  ...toolNames: Array<ReadonlyMap<string, Tool>>
): Map<string, Agent> {
  const byName = new Map<string, Agent>();
  for (const [key, agent] of Object.entries(agents)) {
    if (!(agent instanceof Agent)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${agentId}": agents.${key} is not an Agent.`,
      );
    }
    const name = DELEGATION_PREFIX + key;
    const taken = toolNames.some((tools) => tools.has(name));
    if (!TOOL_NAME.test(name) || taken) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${agentId}": sub-agent key "${key}" gives the tool name "${name}", which is ${taken ? 'already a tool' : 'not a valid tool name'}.`,
      );
    }
    byName.set(name, agent);
  }
  return byName;
}

/** Tools by key. Keys are the names the model sees; ids stay unique too (older runs use them). */
function indexTools(agentId: string, tools: Record<string, Tool>): Map<string, Tool> {
  const byKey = new Map<string, Tool>();
  const ids = new Set<string>();
  for (const [key, tool] of Object.entries(tools)) {
    if (tool?.kind !== 'tollgate-tool') {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${agentId}": tools.${key} is not a tool; build it with createTool().`,
      );
    }
    if (!TOOL_NAME.test(key)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${agentId}": tools key ${JSON.stringify(key)} is the tool's name for the model; use 1-64 letters, digits, '_' or '-'.`,
      );
    }
    if (ids.has(tool.id)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${agentId}": two tools have the id "${tool.id}"; tool ids must be unique per agent.`,
      );
    }
    ids.add(tool.id);
    byKey.set(key, tool);
  }
  return byKey;
}

function checkHistoryOptions(agentId: string, options: HistoryOptions): HistoryOptions {
  for (const [name, value] of Object.entries(options)) {
    if (value !== undefined && (!Number.isInteger(value) || (value as number) < 1)) {
      throw new TollgateError(
        'INVALID_AGENT',
        `Agent "${agentId}": history.${name} must be a whole number of at least 1, not ${String(value)}.`,
      );
    }
  }
  return options;
}

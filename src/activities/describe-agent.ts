import { z } from 'zod';
import { EMPTY_OBJECT_SCHEMA } from '../common/chunks.js';
import { DEFAULT_HISTORY_LIMITS } from '../common/continued-run.js';
import type {
  AgentManifest,
  ToolApprovalMode,
  ToolManifest,
  ToolNaming,
} from '../common/run-types.js';
import { DEFAULT_MAX_STEPS, type Agent } from '../definitions/agent.js';
import { toRules } from '../definitions/approval-policy.js';
import { budgetManifest } from '../definitions/budget-options.js';
import type { Tool } from '../definitions/create-tool.js';

/** Default time without heartbeat after which a tool attempt is presumed lost, ms. */
export const DEFAULT_TOOL_HEARTBEAT_TIMEOUT_MS = 30_000;
/** Defaults of model steps. */
export const DEFAULT_MODEL_STEP = {
  timeoutMs: 10 * 60_000,
  heartbeatTimeoutMs: 60_000,
  maximumAttempts: 3,
};
/** Default number of thread messages a run with memory starts from. */
export const DEFAULT_LAST_MESSAGES = 40;
/** Default limit of one tool execution attempt, ms. */
export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60_000;
/**
 * Default attempts of a tool execution, spent on throws only: an attempt that started `execute` and
 * ended unseen is not repeated unless the tool declares `retry` (`runTool`).
 */
export const DEFAULT_TOOL_ATTEMPTS = 3;
const DEFAULT_TOOL_RETRY_INTERVAL_MS = 1000;

/**
 * The agent reduced to what its workflow needs: names, flags and schemas, never code. Its tools
 * are named as the run names them (`naming`; by id when the run started before keys).
 */
export function describeAgent(agent: Agent, naming: ToolNaming = 'id'): AgentManifest {
  const tools: Record<string, ToolManifest> = {};
  for (const [name, tool] of agent.toolsNamedBy(naming)) tools[name] = describeTool(name, tool);
  for (const [name, subAgent] of agent.subAgents) tools[name] = describeDelegation(name, subAgent);
  const policy = agent.defaultOptions.requireToolApproval;
  const agentRules = toRules(
    agent.defaultOptions.approval,
    `agent "${agent.id}".approval`,
    'agent',
  );
  const budget = budgetManifest(agent.id, agent.budget);
  return {
    agentId: agent.id,
    ...(naming === 'key' ? { toolNaming: naming } : {}),
    tools,
    defaultPolicy: typeof policy === 'function' ? 'function' : policy ? 'always' : 'never',
    maxSteps: agent.defaultOptions.maxSteps ?? DEFAULT_MAX_STEPS,
    lastMessages: agent.memory.lastMessages ?? DEFAULT_LAST_MESSAGES,
    autoResume: agent.defaultOptions.autoResumeSuspendedTools ?? false,
    history: { ...DEFAULT_HISTORY_LIMITS, ...definedOnly(agent.history) },
    ...(agentRules ? { rules: agentRules } : {}),
    ...(agent.execution.modelSteps === 'local' ? { execution: { modelSteps: 'local' } } : {}),
    ...(agent.conversation?.compactAboveBytes !== undefined
      ? { conversation: { compactAboveBytes: agent.conversation.compactAboveBytes } }
      : {}),
    ...(budget ? { budget } : {}),
    modelStep: {
      timeoutMs: agent.modelStep.timeoutMs ?? DEFAULT_MODEL_STEP.timeoutMs,
      heartbeatTimeoutMs:
        agent.modelStep.heartbeatTimeoutMs ?? DEFAULT_MODEL_STEP.heartbeatTimeoutMs,
      retry: {
        maximumAttempts: agent.modelStep.maximumAttempts ?? DEFAULT_MODEL_STEP.maximumAttempts,
        initialIntervalMs: 2000,
      },
    },
  };
}

const schemaTexts = new WeakMap<z.ZodType, string>();

/** A schema as JSON Schema text, made once per schema (a zod schema does not change). */
function schemaJson(schema: z.ZodType): string {
  let text = schemaTexts.get(schema);
  if (text === undefined) {
    text = JSON.stringify(z.toJSONSchema(schema));
    schemaTexts.set(schema, text);
  }
  return text;
}

function describeTool(name: string, tool: Tool): ToolManifest {
  const rules = toRules(tool.approval, `tool "${tool.id}".approval`, 'tool');
  return {
    name,
    ...(name !== tool.id ? { toolId: tool.id } : {}),
    approval: approvalMode(tool.requireApproval),
    inputSchema: schemaJson(tool.inputSchema),
    ...(rules ? { rules } : {}),
    resumeSchema: tool.resumeSchema ? schemaJson(tool.resumeSchema) : EMPTY_OBJECT_SCHEMA,
    timeoutMs: tool.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
    heartbeatTimeoutMs: tool.heartbeatTimeoutMs ?? DEFAULT_TOOL_HEARTBEAT_TIMEOUT_MS,
    retry: {
      maximumAttempts: tool.retry?.maximumAttempts ?? DEFAULT_TOOL_ATTEMPTS,
      initialIntervalMs: tool.retry?.initialIntervalMs ?? DEFAULT_TOOL_RETRY_INTERVAL_MS,
    },
    ...(tool.local ? { local: true } : {}),
  };
}

/**
 * A delegation is never gated itself: it executes nothing but the sub-agent's run, whose own
 * calls are gated and surface on this run.
 */
function describeDelegation(name: string, subAgent: Agent): ToolManifest {
  return {
    name,
    delegate: { agentId: subAgent.id },
    approval: 'never',
    resumeSchema: EMPTY_OBJECT_SCHEMA,
    timeoutMs: DEFAULT_TOOL_TIMEOUT_MS,
    retry: { maximumAttempts: 1, initialIntervalMs: DEFAULT_TOOL_RETRY_INTERVAL_MS },
  };
}

function approvalMode(requireApproval: Tool['requireApproval']): ToolApprovalMode {
  if (typeof requireApproval === 'function') return 'predicate';
  return requireApproval ? 'always' : 'never';
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as Partial<T>;
}

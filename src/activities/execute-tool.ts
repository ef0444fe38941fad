import { Context } from '@temporalio/activity';
import { TollgateError } from '../common/errors.js';
import { tollgateFailure } from '../common/failure.js';
import { toJsonValue } from '../common/json.js';
import { jsonBytes } from '../common/continued-run.js';
import { MAX_TOOL_RESULT_BYTES } from '../common/limits.js';
import type { ExecuteToolInput, ExecuteToolOutput } from '../common/run-types.js';
import type { SuspendSignal, Tool, ToolExecutionContext } from '../definitions/create-tool.js';
import type { Agent } from '../definitions/agent.js';
import { DefinitionChanged } from '../definitions/definition-change.js';
import type { CallbackSigner } from '../channels/callback-link.js';
import type { AgentRegistry } from './agent-registry.js';
import type { Checkpoints } from './checkpoints.js';

const SUSPENDED: SuspendSignal = Object.freeze({ suspended: true as const });

/**
 * Refuses a call on a worker that does not host its agent, before anything runs, handing on what
 * the call's earlier attempts left in their heartbeat details: the run schedules the call again
 * on the agent's queue with them (`onAgentHost`), so a repeat of an attempt that started `execute`
 * unseen is still refused there.
 */
export function refuseUnhosted(agents: AgentRegistry, input: ExecuteToolInput): void {
  if (agents.find(input.agentId)) return;
  const refusal = agents.notHosted(input.agentId);
  const prior: unknown = Context.current().info.heartbeatDetails ?? input.priorAttempt;
  throw tollgateFailure(refusal.code, refusal.message, {
    cause: refusal,
    ...(prior !== undefined ? { details: [prior] } : {}),
  });
}

/**
 * Runs an approved (or ungated) call. Bad arguments, bad output and a `suspend()` come back as
 * values; a throw is left to the tool's retry policy, and the workflow turns the last failure into
 * a tool error the model sees. A result too large to complete with, and a repeat of an attempt
 * that started `execute` and ended unseen (unless the tool declares `retry`), fail at once.
 * `callbacks`: the worker's MCP callback URLs, when its channels can sign them.
 */
export async function runTool(
  agents: AgentRegistry,
  input: ExecuteToolInput,
  checkpoints: Checkpoints,
  callbacks?: CallbackSigner,
): Promise<ExecuteToolOutput> {
  const agent = agents.require(input.agentId);
  const { call } = input;
  const tool = agent.toolsNamedBy(input.toolNaming).get(call.toolName);
  if (!tool)
    return {
      kind: 'error',
      error: `Agent "${agent.id}" has no tool "${call.toolName}".`,
      code: 'TOOL_NOT_FOUND',
    };
  if (checkpoints.previousEndedUnseen && tool.retry === undefined) throw attemptLost(call.toolName);
  const parsed = tool.inputSchema.safeParse(call.args);
  if (!parsed.success)
    return {
      kind: 'error',
      error: `Invalid arguments for tool "${tool.id}": ${issues(parsed.error)}`,
      code: 'INVALID_TOOL_INPUT',
    };
  const resume = checkResumeData(tool, input);
  if (!resume.ok) return { kind: 'error', error: resume.error, code: 'INVALID_RESUME_DATA' };

  let suspendPayload: unknown;
  let suspended = false;
  let resumeSchema: string | undefined;
  const context: ToolExecutionContext = {
    agent: {
      suspend: async (payload, options) => {
        const checked = tool.suspendSchema
          ? tool.suspendSchema.safeParse(payload)
          : { success: true as const, data: payload };
        if (!checked.success)
          throw new TollgateError(
            'INVALID_TOOL',

            `suspend() payload of tool "${tool.id}" is invalid: ${issues(checked.error)}`,
          );
        suspended = true;
        suspendPayload = checked.data;
        if (options?.resumeSchema !== undefined)
          resumeSchema = JSON.stringify(options.resumeSchema);
        return SUSPENDED;
      },
      resumeData: resume.data,
      suspendPayload: input.resumeData !== undefined ? input.suspendPayload : undefined,
      toolCallId: call.toolCallId,
      runId: input.runId,
      agentId: agent.id,
    },
    requestContext: input.requestContext,
    idempotencyKey: input.idempotencyKey ?? `${input.runId}:${call.toolCallId}`,
    attempt: Context.current().info.attempt,
    checkpoint: (value) => checkpoints.record(value),
    lastCheckpoint: checkpoints.previous,
    abortSignal: Context.current().cancellationSignal,
    ...(input.approvedDefinition !== undefined
      ? { approvedDefinition: input.approvedDefinition }
      : {}),
    ...(callbacks
      ? {
          mcpCallbackUrl: callbacks({
            agentId: agent.id,
            runId: input.runId,
            toolCallId: call.toolCallId,
          }),
        }
      : {}),
  };
  const named = { toolName: call.toolName, toolId: tool.id };
  checkpoints.markExecuting(true);
  let output: unknown;
  try {
    output = await withHooks(agent, named, parsed.data, context, () =>
      tool.execute(parsed.data, context),
    );
  } catch (error) {
    // A throw after the attempt was cancelled (its timeout) is not the tool's report: keep the mark.
    if (!context.abortSignal.aborted) checkpoints.markExecuting(false);
    if (!(error instanceof DefinitionChanged)) throw error;
    return { kind: 'definition-changed', note: error.note, definition: error.definition };
  }
  if (suspended)
    return withinLimit(call.toolName, {
      kind: 'suspended',
      suspendPayload: toJsonValue(suspendPayload),
      ...(resumeSchema !== undefined ? { resumeSchema } : {}),
    });
  if (tool.outputSchema) {
    const checked = tool.outputSchema.safeParse(output);
    if (!checked.success)
      return {
        kind: 'error',
        error: `Tool "${tool.id}" returned an invalid result: ${issues(checked.error)}`,
        code: 'INVALID_TOOL_OUTPUT',
      };
  }
  return withinLimit(call.toolName, { kind: 'result', result: toJsonValue(output) });
}

/**
 * Fails a call whose output Temporal would refuse at completion: the refusal is only noticed at the
 * heartbeat timeout, and the attempt then repeated although its effect happened.
 */
function withinLimit(toolName: string, output: ExecuteToolOutput): ExecuteToolOutput {
  const bytes = jsonBytes(output);
  if (bytes <= MAX_TOOL_RESULT_BYTES) return output;
  throw new TollgateError(
    'PAYLOAD_TOO_LARGE',
    `Tool "${toolName}" returned ${bytes} bytes of JSON, over the limit of ${MAX_TOOL_RESULT_BYTES} bytes for a tool result; it ran once and is not retried: return less (a summary, a page, or a reference to where the data is stored).`,
  );
}

function attemptLost(toolName: string): TollgateError {
  const previous = Context.current().info.attempt - 1;
  return new TollgateError(
    'TOOL_ATTEMPT_LOST',
    `Tool "${toolName}" did not finish: attempt ${previous} started execute and then timed out, lost its worker or could not deliver its result, so the call may have had its effect and is not run again; declare retries safe with createTool({ retry }) if its effects happen once by context.idempotencyKey.`,
  );
}

function checkResumeData(
  tool: Tool,
  input: ExecuteToolInput,
): { ok: true; data: unknown } | { ok: false; error: string } {
  if (input.resumeData === undefined || !tool.resumeSchema)
    return { ok: true, data: input.resumeData };
  const checked = tool.resumeSchema.safeParse(input.resumeData);
  if (checked.success) return { ok: true, data: checked.data };
  return {
    ok: false,
    error: `Resume data for tool "${tool.id}" is invalid: ${issues(checked.error)}`,
  };
}

function issues(error: {
  issues: ReadonlyArray<{ path: ReadonlyArray<PropertyKey>; message: string }>;
}): string {
  return error.issues
    .map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Runs `execute` between the agent's hooks (after the gate): `beforeToolCall` may skip it with
 * its own output, and `afterToolCall` sees the output or the error.
 */
async function withHooks(
  agent: Agent,
  named: { toolName: string; toolId: string },
  input: unknown,
  context: ToolExecutionContext,
  execute: () => unknown,
): Promise<unknown> {
  const { beforeToolCall, afterToolCall } = agent.hooks;
  const before = await beforeToolCall?.({ ...named, input, context });
  let output: unknown;
  try {
    output = before && before.proceed === false ? before.output : await execute();
  } catch (error) {
    await afterToolCall?.({ ...named, input, context, error });
    throw error;
  }
  await afterToolCall?.({ ...named, input, context, output });
  return output;
}

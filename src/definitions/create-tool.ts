import type { z } from 'zod';
import { TollgateError } from '../common/errors.js';
import { toRules, type ApprovalPolicy } from './approval-policy.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import type { McpCallbackBinding } from '../common/mcp-callback.js';

/** Options of one `suspend()`. */
export interface SuspendOptions {
  /**
   * JSON Schema (an object) of the resume data this suspension takes, instead of the tool's
   * `resumeSchema`: for a tool that learns what to ask only while it runs (an MCP elicitation).
   * Resume data is checked against it before it reaches the run.
   */
  resumeSchema?: Record<string, unknown>;
}

/** Where a tool's `suspend()` leaves its call: parked until resumed with data. */
export interface SuspendSignal {
  readonly suspended: true;
}

/** What `execute` receives besides its validated input (SPEC §1). */
export interface ToolExecutionContext<TSuspend = unknown, TResume = unknown> {
  agent: {
    /**
     * Parks the call until `resumeStream()` supplies data; `execute` then runs again from the top
     * with `resumeData` set. Does not throw: write `return await context.agent.suspend(...)`.
     */
    suspend(payload: TSuspend, options?: SuspendOptions): Promise<SuspendSignal>;
    /** Resume data of the call, validated by `resumeSchema`; undefined on the first run. */
    resumeData: TResume | undefined;
    /** With `resumeData`: the payload of the `suspend()` it answers; undefined otherwise. */
    suspendPayload: TSuspend | undefined;
    toolCallId: string;
    runId: string;
    agentId: string;
  };
  /** The request's context, as given to `stream()` / `generate()`. */
  requestContext: JsonObject;
  /** `<runId>:<toolCallId>`: the same on every retry; use it to make side effects happen once. */
  idempotencyKey: string;
  /**
   * 1 on the first attempt of this execution; above 1, earlier attempts of the same call started
   * (they threw, timed out, or their worker died) and may have had effects. Starts at 1 again
   * when `execute` runs after a `suspend()`.
   */
  attempt: number;
  /**
   * Records progress of this call (JSON), e.g. `{ chargeId }` right after a side effect; later
   * attempts of the call read it as `lastCheckpoint`. It travels with the heartbeats: a worker
   * crash can lose a checkpoint recorded less than a heartbeat interval before it.
   */
  checkpoint(value: JsonValue): void;
  /** The latest `checkpoint()` of an earlier attempt of this call; undefined on a first attempt. */
  lastCheckpoint: JsonValue | undefined;
  /** Aborted when the run is cancelled or the attempt times out. */
  abortSignal: AbortSignal;
  /**
   * The `definition` the call's gate answered (or the one its latest re-approval showed): what
   * the approver was shown of the tool, not only of the call. Throw `DefinitionChanged` when the
   * tool would now run something else. Undefined when the gate named none.
   */
  approvedDefinition?: string;
  /**
   * For MCP tools (docs/mcp.md "URL mode"): a signed URL of the Tollgate server that answers this
   * call's URL-mode elicitation with `accept` when hit, bound to the run, the call, the wait
   * (`answered`: how many elicitations of the call were answered before it) and, when known, the
   * elicitation's id; valid for the channels' `linkTtl`. Undefined when the worker has no
   * `channels` with a signing secret.
   */
  mcpCallbackUrl?: (binding: McpCallbackBinding) => string;
}

/** A predicate's answer with its reason, which the audit and the approval request show. */
export interface GateAnswer {
  gated: boolean;
  note?: string;
  /**
   * `false`: no standing grant covers this call, a person decides it (an MCP tool whose
   * definition changed answers so). Default `true`.
   */
  grantable?: boolean;
  /**
   * What the call will run, as the gate saw it: an opaque version such as an MCP tool's definition
   * fingerprint. The call's approval binds to it; `execute` reads it as
   * `context.approvedDefinition`.
   */
  definition?: string;
}

/** What a tool's approval predicate receives. */
export interface ApprovalPredicateContext {
  toolName: string;
  runId: string;
  toolCallId: string;
  requestContext: JsonObject;
}

/**
 * Retry of a tool's execution. Setting `retry` declares retries safe (the tool's effects happen
 * once by `context.idempotencyKey`, or it has none): failures, timeouts and worker crashes
 * mid-execution are then all retried. Without it, a throw is retried (3 attempts), but an attempt
 * that started `execute` and ended without a report (timed out, its worker died, its result never
 * reached Temporal) is not: the call ends with `TOOL_ATTEMPT_LOST`.
 */
export interface ToolRetryOptions {
  /** Attempts in all, first included. Default 3. Use 1 for tools that cannot be made idempotent. */
  maximumAttempts?: number;
  /** Delay before the first retry, ms. Default 1000; doubles on each retry. */
  initialIntervalMs?: number;
}

export interface ToolConfig<TInput, TOutput, TSuspend, TResume> {
  /**
   * Identifies the definition, e.g. `delete-record` (activity summaries, registries). The model,
   * policies and hooks name the tool by its key in the agent's `tools` (SPEC §1 "Tool names").
   */
  id: string;
  /** Told to the model. */
  description?: string;
  inputSchema: z.ZodType<TInput>;
  /** Checked on the result; a mismatch becomes a tool error. */
  outputSchema?: z.ZodType<TOutput>;
  /**
   * `true`: every call waits for approval. A function decides per call and overrides the request's
   * `requireToolApproval`; if it throws, the call is gated. It may answer `{ gated, note }` to say
   * why (shown in the audit and the approval request). Default: decided by the request.
   */
  requireApproval?:
    | boolean
    | ((
        args: TInput,
        context: ApprovalPredicateContext,
      ) => boolean | GateAnswer | Promise<boolean | GateAnswer>);
  /** Deadline, reminders, approvers and quorum for this tool's gated calls (SPEC §10). */
  approval?: ApprovalPolicy;
  suspendSchema?: z.ZodType<TSuspend>;
  resumeSchema?: z.ZodType<TResume>;
  /** Limit of one execution attempt, ms. Default 300000 (5 minutes). */
  timeoutMs?: number;
  /**
   * The worker heartbeats while `execute` runs; when heartbeats stop for this long (the worker
   * died), the attempt is retried elsewhere. Default 30000 ms.
   */
  heartbeatTimeoutMs?: number;
  /** Declares retries safe and sets them (see `ToolRetryOptions`). Default: see there. */
  retry?: ToolRetryOptions;
  /**
   * `true`: ungated calls run as Temporal local activities in the worker that runs the workflow,
   * with no round trip through the server (see docs/local-execution.md). Meant for read-only
   * tools: a worker that dies mid-run executes them again. Local activities cannot heartbeat, so
   * `heartbeatTimeoutMs` and `checkpoint()` do not carry across attempts. A call that a request or
   * agent policy gates still runs as an ordinary activity after its approval. Cannot be combined
   * with `requireApproval` (`INVALID_TOOL`). Default `false`.
   */
  local?: boolean;
  execute(
    input: TInput,
    context: ToolExecutionContext<TSuspend, TResume>,
  ): Promise<TOutput | SuspendSignal> | TOutput | SuspendSignal;
}

/**
 * A tool definition, as held by the worker. Build it with `createTool`. The defaults are `any`
 * because `execute` takes its input contravariantly: a map of tools must accept every input type.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Tool<TInput = any, TOutput = any, TSuspend = any, TResume = any> = Readonly<
  ToolConfig<TInput, TOutput, TSuspend, TResume>
> & { readonly kind: 'tollgate-tool' };

/** Tool names models accept (tool ids and the keys of an agent's `tools`). */
export const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Defines a tool. Throws `TollgateError('INVALID_TOOL')` naming the field that is wrong. */
export function createTool<TInput, TOutput, TSuspend = unknown, TResume = unknown>(
  config: ToolConfig<TInput, TOutput, TSuspend, TResume>,
): Tool<TInput, TOutput, TSuspend, TResume> {
  const where = `createTool(${JSON.stringify(config?.id ?? null)})`;
  if (typeof config?.id !== 'string' || !TOOL_NAME.test(config.id)) {
    throw new TollgateError(
      'INVALID_TOOL',
      `${where}: id must be 1-64 letters, digits, '_' or '-' (models reject other tool names).`,
    );
  }
  if (typeof config.execute !== 'function') {
    throw new TollgateError('INVALID_TOOL', `${where}: execute must be a function.`);
  }
  if (typeof config.inputSchema?.safeParse !== 'function') {
    throw new TollgateError('INVALID_TOOL', `${where}: inputSchema must be a zod schema.`);
  }
  const approval = config.requireApproval;
  if (approval !== undefined && typeof approval !== 'boolean' && typeof approval !== 'function') {
    throw new TollgateError(
      'INVALID_TOOL',
      `${where}: requireApproval must be a boolean or a function, not ${typeof approval}.`,
    );
  }
  if (config.local !== undefined && typeof config.local !== 'boolean') {
    throw new TollgateError(
      'INVALID_TOOL',
      `${where}: local must be a boolean, not ${typeof config.local}.`,
    );
  }
  if (config.local === true && approval !== undefined && approval !== false) {
    throw new TollgateError(
      'INVALID_TOOL',
      `${where}: a tool with requireApproval cannot be local: remove local: true (gated calls run as ordinary activities) or remove requireApproval.`,
    );
  }
  const attempts = config.retry?.maximumAttempts;
  if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 1)) {
    throw new TollgateError(
      'INVALID_TOOL',
      `${where}: retry.maximumAttempts must be a whole number of at least 1, not ${attempts}.`,
    );
  }
  toRules(config.approval, `${where}.approval`, 'tool');
  return Object.freeze({ ...config, kind: 'tollgate-tool' as const });
}

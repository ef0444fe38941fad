import type { Client } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { jsonBytes } from '../common/continued-run.js';
import { TollgateError } from '../common/errors.js';
import type { ForkOrigin, ForkPointAnswer } from '../common/fork-point.js';
import type {
  ForkCall,
  ForkListing,
  ForkPointCall,
  ForkRequest,
  ForkStart,
} from '../common/fork-types.js';
import type { JsonValue } from '../common/json.js';
import { forkPointQuery } from '../common/messages.js';
import type { DecidedBy, RequestPolicy, RunInput } from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import { SEARCH_ATTRIBUTES } from '../common/wire.js';
import type { AgentClientContext } from './agent-client-context.js';
import { callFailure } from './call-failure.js';
import { launchRun } from './start-run.js';

/** The largest fork input started: below Temporal's 2 MB payload limit, like a continue-as-new. */
const FORK_MAX_BYTES = 1_900_000;

/**
 * Forks run `request.runId` of `agentId` (docs/fork.md): reads its state at the end of
 * `request.step` by query (the original is never signalled or changed) and starts a new run of
 * the same agent from there. The caller's scope was checked for the original already.
 */
export async function forkRun(
  context: AgentClientContext,
  agentId: string,
  client: Client,
  request: ForkRequest,
  requester: Pick<RunInput, 'requester'> & { forkedBy?: DecidedBy },
) {
  const { runId, step } = request;
  let point: ForkPointAnswer;
  try {
    point = await client.workflow.getHandle(runId).query(forkPointQuery, { step });
  } catch (error) {
    throw await callFailure(context, error, runId);
  }
  if ('unavailable' in point) {
    const { earliest, latest } = point.unavailable;
    throw new TollgateError(
      'INVALID_FORK_STEP',
      `Run ${runId} cannot be forked at step ${step}: it can be forked at steps ${earliest} to ${latest} (earlier steps went with a continue-as-new or a compaction); choose one of those.`,
    );
  }
  const fork: ForkStart = {
    runId,
    step,
    calls: choose(runId, step, point.calls, request.calls ?? {}),
    ...(requester.forkedBy ? { forkedBy: requester.forkedBy } : {}),
  };
  const messages = withPrompt(request, point.messages, fork);
  const input: RunInput = {
    ...inherited(point.origin),
    agentId,
    messages,
    ...(request.maxSteps !== undefined ? { maxSteps: request.maxSteps } : {}),
    ...(requester.requester !== undefined ? { requester: requester.requester } : {}),
    fork,
  };
  const bytes = jsonBytes(input);
  if (bytes > FORK_MAX_BYTES) {
    throw new TollgateError(
      'PAYLOAD_TOO_LARGE',
      `A fork of run ${runId} at step ${step} would start with ${bytes} bytes of conversation, over ${FORK_MAX_BYTES}; fork at an earlier step.`,
    );
  }
  const forkRunId = request.forkRunId ?? randomUUID();
  return launchRun(context, client, forkRunId, input, {
    summary: `${agentId}: fork of ${runId} at step ${step}`,
    searchAttributes: [{ key: SA_KEYS.forkedFrom, value: runId }],
    memo: { forkedFrom: { runId, step } },
  });
}

/**
 * The original's request, as far as a fork can carry it: a request policy held by the process
 * that started the original cannot be called from here, so the fork gates every call instead.
 * The memory thread is left out (the fork must not append to the original's conversation); the
 * resource stays, so the same scopes see it. The requester is the one who forks.
 */
function inherited(origin: ForkOrigin): Omit<RunInput, 'messages'> {
  const { requester: _requester, ...requestContext } = origin.requestContext;
  const requestPolicy: RequestPolicy =
    origin.requestPolicy.kind === 'function' ? { kind: 'always' } : origin.requestPolicy;
  return {
    agentId: origin.agentId,
    requestPolicy,
    requestContext,
    ...(origin.approvalRules ? { approvalRules: origin.approvalRules } : {}),
    ...(origin.activeTools ? { activeTools: origin.activeTools } : {}),
    ...(origin.resourceId !== undefined ? { resourceId: origin.resourceId } : {}),
  };
}

/** What the fork does with each call of the step: as asked, else keep what ended, ask the rest. */
function choose(
  runId: string,
  step: number,
  calls: ForkPointCall[],
  asked: NonNullable<ForkRequest['calls']>,
): ForkCall[] {
  const ids = calls.map((call) => call.toolCallId);
  const unknown = Object.keys(asked).find((id) => !ids.includes(id));
  if (unknown !== undefined) {
    throw new TollgateError(
      'INVALID_OPTIONS',
      `Tool call "${unknown}" is not a call of step ${step} of run ${runId}; its calls are: ${ids.join(', ') || 'none'}.`,
    );
  }
  return calls.map(({ result, gated: _gated, ...call }) => {
    const given = asked[call.toolCallId];
    const choice = typeof given === 'object' ? given.choice : (given ?? (result ? 'keep' : 'ask'));
    if (choice === 'keep' && !result) {
      throw new TollgateError(
        'INVALID_OPTIONS',
        `Tool call "${call.toolCallId}" of run ${runId} has no result yet (it waits or runs there), so the fork cannot keep one; choose "ask" or "decline".`,
      );
    }
    const reason = typeof given === 'object' ? given.reason : undefined;
    return {
      ...call,
      choice,
      ...(choice === 'keep' && result ? { result } : {}),
      ...(reason !== undefined ? { reason } : {}),
    };
  });
}

/** The fork's opening conversation: at step 0 the prompt replaces the last user message. */
function withPrompt(request: ForkRequest, messages: JsonValue[], fork: ForkStart): JsonValue[] {
  if (request.prompt === undefined) return messages;
  const message = { role: 'user', content: request.prompt };
  const mode = request.promptMode ?? (request.step === 0 ? 'replace' : 'append');
  const last = messages.findLastIndex((m) => (m as { role?: string }).role === 'user');
  if (mode === 'replace' && last >= 0) {
    fork.replaced = true;
    return messages.map((m, index) => (index === last ? message : m));
  }
  fork.prompt = message;
  return messages;
}

/**
 * The forks of `runId`, newest first, found by their `TollgateForkedFrom` search attribute: the
 * original's own history holds no link, since it is never changed. Visibility lags a start by
 * about a second.
 */
export async function listForks(client: Client, runId: string): Promise<ForkListing[]> {
  const forks: ForkListing[] = [];
  const query = `${SEARCH_ATTRIBUTES.forkedFrom.name} = ${JSON.stringify(runId)}`;
  for await (const run of client.workflow.list({ query, pageSize: 100 })) {
    const from = run.memo?.forkedFrom as { step?: number } | undefined;
    forks.push({
      runId: run.workflowId,
      step: from?.step ?? 0,
      startedAt: run.startTime.toISOString(),
      status: run.typedSearchAttributes.get(SA_KEYS.status) ?? run.status.name.toLowerCase(),
    });
    if (forks.length >= 1000) break;
  }
  return forks;
}

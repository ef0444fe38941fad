/**
 * Request bodies and query strings of the HTTP API (`common/http-api.ts`), as zod schemas.
 * They check shape only; what only the runtime can judge (a taken run id, resume data against
 * the tool's schema) is left to it and comes back as a `TollgateError`. Unknown fields are
 * stripped, so a `decidedBy` in a body never reaches a decision.
 */
import { z } from 'zod';
import type {
  ApprovalsQuery,
  ApproveBody,
  DeclineBody,
  DecisionsBody,
  GrantBody,
  GrantsQuery,
  HandOffBody,
  MoveRunBody,
  ObserveBody,
  ResumeBody,
  SendToolApprovalBody,
  StreamBody,
} from '../common/http-api.js';
import type { JsonObject, JsonValue } from '../common/json.js';
import type { ForkRequest } from '../common/fork-types.js';
import { idProblem, instantProblem } from '../common/limits.js';
import { MAX_BATCH_DECISIONS } from '../common/batch-decisions.js';
import { MAX_ACTIVE_TOOLS } from '../common/active-tools.js';
import { MAX_APPROVER_ENTRIES, MAX_HAND_OFF_NOTE } from '../common/approval-rules.js';

const json: z.ZodType<JsonValue> = z.json();
const jsonObject: z.ZodType<JsonObject> = z.record(z.string(), json);
/** An id within the limits of `common/limits.ts`, the same the SDK's option checks apply. */
const id = z.string().superRefine((value, context) => {
  const problem = idProblem(value, 'the id');
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** Shape only of a budget's limits: the runtime judges the values (`INVALID_OPTIONS`). */
const budgetLimits = {
  tokens: z.object({ limit: z.number(), warnAt: z.number().optional() }).optional(),
  cost: z
    .object({
      limit: z.number(),
      warnAt: z.number().optional(),
      prices: z.object({ input: z.number(), output: z.number() }),
    })
    .optional(),
};

export const streamBody: z.ZodType<StreamBody> = z.object({
  messages: z.union([z.string().min(1), z.array(json).min(1)]),
  options: z
    .object({
      requireToolApproval: z.union([z.boolean(), z.string().min(1)]).optional(),
      approval: z
        .object({
          timeout: z.union([z.string().min(1), z.number().positive()]).optional(),
          onTimeout: z.enum(['decline', 'approve', 'fail']).optional(),
          approvers: z.array(id).optional(),
          quorum: z.number().int().min(1).optional(),
          separateRequester: z.boolean().optional(),
        })
        .optional(),
      approvalOverride: z.boolean().optional(),
      maxSteps: z.number().int().min(1).optional(),
      requestContext: jsonObject.optional(),
      memory: z.object({ thread: id, resource: id }).optional(),
      runId: id.optional(),
      // Names only: whether the agent has them is the runtime's to judge (`INVALID_OPTIONS`).
      activeTools: z.array(z.string().min(1)).max(MAX_ACTIVE_TOOLS).optional(),
      // Shape only: the runtime judges the values (`INVALID_OPTIONS` names the bad field).
      budget: z
        .object({
          ...budgetLimits,
          shared: z
            .array(
              z
                .object({
                  per: z.enum(['thread', 'resource', 'agent']),
                  period: z
                    .union([
                      z.literal('day'),
                      z.object({ rolling: z.union([z.string(), z.number()]) }).strict(),
                    ])
                    .optional(),
                  ...budgetLimits,
                })
                .strict(),
            )
            .max(3)
            .optional(),
        })
        .strict()
        .optional(),
    })
    .optional(),
});

export const approveBody: z.ZodType<ApproveBody> = z.object({
  runId: id,
  toolCallId: id.optional(),
  fingerprint: id.optional(),
  reason: z.string().optional(),
  args: json.optional(),
  // Any number: the run refuses one that is not positive (`INVALID_BUDGET_AMOUNT`).
  amount: z.number().optional(),
  grant: z
    .union([
      z.object({
        for: z.union([z.string().min(1), z.number()]),
        scope: z.enum(['thread', 'resource']),
        matchArgs: z.boolean().optional(),
        release: z.boolean().optional(),
      }),
      z.object({ scope: z.literal('run') }).strict(),
    ])
    .optional(),
});

export const declineBody: z.ZodType<DeclineBody> = z.object({
  runId: id,
  toolCallId: id.optional(),
  reason: z.string().optional(),
});

export const handOffBody: z.ZodType<HandOffBody> = z.object({
  runId: id,
  toolCallId: id.optional(),
  fingerprint: id.optional(),
  to: z.array(id).min(1).max(MAX_APPROVER_ENTRIES),
  note: z.string().max(MAX_HAND_OFF_NOTE).optional(),
});

export const moveRunBody: z.ZodType<MoveRunBody> = z.object({
  runId: id,
  to: id.optional(),
  reason: z.string().max(2000).optional(),
});

export const resumeBody: z.ZodType<ResumeBody> = z.object({
  runId: id,
  toolCallId: id.optional(),
  resumeData: json,
});

export const sendToolApprovalBody: z.ZodType<SendToolApprovalBody> = z.object({
  threadId: id,
  resourceId: id,
  toolCallId: id.optional(),
  approved: z.boolean(),
  resumeData: json.optional(),
  reason: z.string().optional(),
});

export const decisionsBody: z.ZodType<DecisionsBody> = z.object({
  decisions: z
    .array(
      z.object({
        agentId: id,
        runId: id,
        toolCallId: id,
        action: z.enum(['approve', 'decline']),
        fingerprint: id.optional(),
        reason: z.string().optional(),
      }),
    )
    .min(1)
    .max(MAX_BATCH_DECISIONS),
});

const forkChoice = z.enum(['keep', 'decline', 'ask']);

/** Shapes only: the runtime judges steps and call ids against the run (`INVALID_FORK_STEP`). */
export const forkBody: z.ZodType<ForkRequest> = z.object({
  runId: id,
  step: z.number().int().min(0),
  prompt: z.string().min(1).max(100_000).optional(),
  promptMode: z.enum(['replace', 'append']).optional(),
  calls: z
    .record(
      id,
      z.union([
        forkChoice,
        z.object({ choice: z.literal('decline'), reason: z.string().max(2000).optional() }),
      ]),
    )
    .optional(),
  forkRunId: id.optional(),
  maxSteps: z.number().int().min(1).optional(),
});

export const observeBody: z.ZodType<ObserveBody> = z.object({
  runId: id,
  offset: z.number().int().min(0).optional(),
});

/** A whole number in a query string. */
const count = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'Expected a whole number')
    .transform(Number)
    .pipe(z.number().min(min).max(max));

const instant = z
  .string()
  .refine((text) => !Number.isNaN(Date.parse(text)), 'Expected an ISO-8601 date')
  .transform((text) => new Date(text))
  .superRefine((date, context) => {
    const problem = instantProblem(date, 'the date');
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

const paging = {
  threadId: id.optional(),
  resourceId: id.optional(),
  perPage: count(1, 1000).optional(),
  page: count(0, Number.MAX_SAFE_INTEGER).optional(),
};

/** Query of GET `suspended-runs`; dates become `Date`s for `listSuspendedRuns`. */
export const suspendedRunsQuery = z.object({
  ...paging,
  fromDate: instant.optional(),
  toDate: instant.optional(),
});

export const approvalsQuery: z.ZodType<ApprovalsQuery> = z.object({
  ...paging,
  agentId: id.optional(),
});

export const pendingToolCallsQuery = z.object({ runId: id });

/** The duration is checked by the runtime (`INVALID_GRANT` names what is wrong with it). */
export const grantBody: z.ZodType<GrantBody> = z.object({
  agentId: id,
  // One of the two; the runtime says which is missing or doubled (INVALID_GRANT).
  toolName: id.optional(),
  mcpServer: id.optional(),
  resourceId: id,
  threadId: id.optional(),
  for: z.union([z.string().min(1), z.number()]),
  args: json.optional(),
  definition: z.string().max(128).optional(),
  reason: z.string().optional(),
});

export const grantsQuery: z.ZodType<GrantsQuery> = z.object({
  agentId: id.optional(),
  resourceId: id.optional(),
  threadId: id.optional(),
  toolName: id.optional(),
});

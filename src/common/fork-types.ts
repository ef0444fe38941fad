/**
 * Forking a run (docs/fork.md): a new run of the same agent that starts from another run's
 * conversation at the end of one of its steps. JSON-safe and browser-safe; shared by the
 * workflow (the query that answers a fork point, the fork's start), the clients and the HTTP API.
 */
import type { ModelToolCall } from './activity-types.js';
import type { DecidedBy } from './decision-types.js';
import type { JsonValue } from './json.js';
import type { ToolResultPart } from './tool-result-part.js';

/** Where a fork came from: recorded in its input, its audit, its memo and a search attribute. */
export interface ForkedFrom {
  /** The original run. */
  runId: string;
  /** The original's step the fork starts after (0: before its first model step). */
  step: number;
}

/**
 * What becomes of one tool call of the fork's step in the fork: `keep` its result from the
 * original (nothing runs again), `decline` it (nothing runs; the model is told `reason`), or
 * `ask` for a decision again in the fork (it waits like any gated call, whatever the policy).
 */
export type ForkChoice = 'keep' | 'decline' | 'ask';

/** A tool call of the fork's step, as the original ended it (`result` absent: no outcome yet). */
export interface ForkPointCall extends ModelToolCall {
  /** The original's tool-result part for the call; absent while it waits or runs there. */
  result?: ToolResultPart;
  /** Whether the original's gate stopped the call for a decision. */
  gated: boolean;
}

/** One call of the fork's step, as the fork's workflow receives it. */
export interface ForkCall extends ModelToolCall {
  choice: ForkChoice;
  /** For `keep`: the original's result part. */
  result?: ToolResultPart;
  /** For `decline`: what the model is told. */
  reason?: string;
}

/** Set in a fork's `RunInput`: where it came from and what it does at its first step boundary. */
export interface ForkStart extends ForkedFrom {
  /** The original's calls of step `step`, with what the fork does with each. */
  calls: ForkCall[];
  /** A user message added after those calls' results, before the fork's first model step. */
  prompt?: JsonValue;
  /** Set when the fork's opening user message replaced the original's (a fork at step 0). */
  replaced?: true;
  /** Who forked (over HTTP, the token's identity). */
  forkedBy?: DecidedBy;
}

/** The fork's first audit entry: the whole run, so it names no call. */
export interface ForkedAuditEntry {
  at: string;
  type: 'forked';
  toolCallId?: undefined;
  toolName?: undefined;
  toolId?: undefined;
  from: ForkedFrom;
  /** `replaced`: the opening user message was replaced; `appended`: a user message was added. */
  prompt?: 'replaced' | 'appended';
  /** What the fork did with each call of the step. */
  calls: Array<{ toolCallId: string; toolName: string; choice: ForkChoice; reason?: string }>;
  forkedBy?: DecidedBy;
}

/** A fork of a run, as the original's listing shows it (found by `TollgateForkedFrom`). */
export interface ForkListing {
  runId: string;
  step: number;
  /** ISO-8601. */
  startedAt: string;
  status: string;
}

/** GET `/api/agents/:agentId/forks?runId=`. */
export interface ForksResponse {
  forks: ForkListing[];
}

/** What to fork, and how the fork differs from the original. */
export interface ForkRequest {
  /** The run to fork; it is only read. */
  runId: string;
  /** The step to fork after: its conversation, tool results included, is the fork's start. 0: before the first model step. */
  step: number;
  /**
   * A user message for the fork. At step 0 it replaces the original's last user message (unless
   * `promptMode: 'append'`); after a later step it is added after that step's tool results.
   */
  prompt?: string;
  /** Default `replace` at step 0, else `append`; `replace` is only possible at step 0. */
  promptMode?: 'replace' | 'append';
  /**
   * What the fork does with the step's tool calls, by `toolCallId`. Default: `keep` a call the
   * original ended, `ask` one that still waits or runs there.
   */
  calls?: Record<string, ForkChoice | { choice: 'decline'; reason?: string }>;
  /** The fork's own run id; default a random UUID. */
  forkRunId?: string;
  /** The fork's step limit, counted from its first step (default: the agent's `maxSteps`). */
  maxSteps?: number;
}

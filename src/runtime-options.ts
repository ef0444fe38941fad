/** The options of `new Tollgate()` and `Tollgate.getAgent()`. */
import { TollgateError } from './common/errors.js';
import type { ThreadSettings } from './activities/memory.js';
import type { ChannelsOptions } from './channels/channel-options.js';
import type { DecidedBy } from './common/run-types.js';
import type { Scope } from './common/scope.js';
import type { Agent, ToolApprovalPolicy } from './definitions/agent.js';
import type { LiveDeltaOptions } from './live/live-options.js';
import type { TracingOptions } from './telemetry/tracing.js';
import type { DecisionSettings } from './temporal-client/decision-settings.js';
import type { WorkerSettings } from './worker-settings.js';

export interface TemporalOptions {
  /** Frontend address. Default `TEMPORAL_ADDRESS` or `localhost:7233`. */
  address?: string;
  /** Default `TEMPORAL_NAMESPACE` or `default`. */
  namespace?: string;
  /** Task queue of agent runs. Default `tollgate`. */
  taskQueue?: string;
}

export interface TollgateOptions {
  /** Agents this process hosts; omit in a process that only starts and steers runs. */
  agents?: Record<string, Agent>;
  temporal?: TemporalOptions;
  /** How memory threads are kept by this worker (see `ThreadSettings`). */
  threads?: Partial<ThreadSettings>;
  /**
   * Approval policies by name, for requests that cannot ship a function (HTTP, other languages):
   * `requireToolApproval: 'name'`. An unknown name gates every call.
   */
  policies?: Record<string, ToolApprovalPolicy>;
  /**
   * OpenTelemetry tracing of runs, model steps and tool calls (spans of one run share a trace):
   * `{ exporter }`, e.g. an OTLP exporter. Off by default; when off, nothing is installed.
   */
  telemetry?: TracingOptions;
  /** Cache, concurrency and time limits of the agent worker (see `WorkerSettings`). */
  worker?: WorkerSettings;
  /** How long decisions wait for their run, and their deadline (see `DecisionSettings`). */
  decisions?: DecisionSettings;
  /**
   * How live text deltas reach streams in other processes: `{ redis: { url } }` (see
   * `LiveDeltaOptions`, docs/live-tokens.md). Set it alike on workers and API servers. Default:
   * env `TOLLGATE_LIVE_REDIS_URL` if set, else live text reaches streams of this process only.
   */
  liveDeltas?: LiveDeltaOptions;
  /**
   * Webhooks (Slack, or generic JSON) that get this worker's waiting calls, with signed
   * Approve / Decline links (docs/channels.md).
   */
  channels?: ChannelsOptions;
  /**
   * How runs this runtime starts record Tollgate's workflow patches (docs/workflow-changes.md "One
   * marker for new runs"): `'each'` (default) one marker per patch, as every release before;
   * `'one'` a single marker for all of them (eight fewer history events and four fewer visibility
   * writes for a run parked on its first approval). Set `'one'` only once every worker of the task queue runs this
   * release or a later one: an older worker cannot replay such a run.
   */
  patchMarkers?: 'each' | 'one';
  /**
   * How `generate()`, `approveToolCallGenerate()`, `declineToolCallGenerate()` and
   * `resumeGenerate()` follow the run to its next `finish` (docs/streams.md "Following by
   * update"): `'history'` (default) by long-polling its history, as every release before;
   * `'update'` by asking the run with one update that it answers with the chunks (`generate()`
   * starts the run with it), for fewer calls and less CPU on client and server, reading history
   * only where the run does not answer. Set `'update'` only once every worker of the task
   * queue runs this release or a later one: an older worker cannot replay a run that took one.
   */
  follow?: 'history' | 'update';
}

/** Options of `Tollgate.getAgent`. */
export interface GetAgentOptions {
  /** Limits of the caller the handle acts for; without it, the handle may do everything. */
  scope?: Scope;
  /**
   * Who the handle acts for (the server passes the token's identity): runs it starts record this
   * id as their requester, whom `separateRequester` keeps from approving. A different
   * `requestContext.requester` is then refused (`FORBIDDEN`) unless the scope has `admin`.
   */
  identity?: DecidedBy;
}

/**
 * A choice among `allowed` strings, checked: undefined is the first (the default), anything else
 * not among them is `INVALID_OPTIONS` naming the option.
 */
export function checkChoice<T extends string>(option: string, value: unknown, allowed: T[]): T {
  if (value === undefined) return allowed[0]!;
  if (allowed.includes(value as T)) return value as T;
  const choices = allowed.map((choice) => `'${choice}'`).join(' or ');
  const given = JSON.stringify(value) ?? String(value);
  throw new TollgateError('INVALID_OPTIONS', `${option} must be ${choices}, not ${given}.`);
}

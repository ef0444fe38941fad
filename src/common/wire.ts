/**
 * Every name that crosses the wire: workflow type, task queue, signals, updates, queries and
 * search-attribute keys. Dependency-free so workflows, workers, clients and other services
 * share one definition (SPEC §8).
 */

/** Workflow type of an agent run; the workflow id is the run id. */
export const AGENT_RUN_WORKFLOW = 'agentRun';

/** Default task queue for agent runs. */
export const DEFAULT_TASK_QUEUE = 'tollgate';

/** Default Temporal frontend address. */
export const DEFAULT_ADDRESS = 'localhost:7233';

/** Default Temporal namespace. */
export const DEFAULT_NAMESPACE = 'default';

export const SIGNALS = {
  approve: 'approve',
  decline: 'decline',
  resume: 'resume',
  /** Hands a waiting approval to other approvers (docs/hand-off.md). Argument: `HandOffInput`. */
  handOff: 'handOff',
} as const;

/**
 * Internal: records in the run's audit a decision the HTTP server refused before it reached the
 * run (a tampered or expired signed link), or one the run refused as an update, which leaves no
 * history of its own. Changes nothing else. Argument: `RefusedDecisionNote`.
 */
export const REFUSED_DECISION_SIGNAL = 'tollgate.refusedDecision';

/**
 * Internal: an operator moved the run to another build (docs/deploying.md). Records a `moved`
 * entry in the run's audit, nothing else. Argument: `RunMovedNote`.
 */
export const RUN_MOVED_SIGNAL = 'tollgate.moved';

/**
 * Workflow type of a replay check: started pinned to a build, it replays a run's history with
 * that build's workflow code before the run is moved there. Answers `ReplayCheckAnswer`.
 */
export const REPLAY_CHECK_WORKFLOW = 'tollgateReplayCheck';

export const UPDATES = {
  approveToolCall: 'approveToolCall',
  declineToolCall: 'declineToolCall',
  resumeToolCall: 'resumeToolCall',
  /** The hand-off as an update: refused before history, answers `HandedOff`. */
  handOffToolCall: 'handOffToolCall',
} as const;

export const QUERIES = {
  /** Public: the pending calls, as listed by `listSuspendedRuns`. */
  pendingToolCalls: 'pendingToolCalls',
  /** Internal: a slice of the run's chunk log. */
  chunks: 'tollgate.chunks',
  /** The run's audit trail (SPEC §10): gates, requests, decisions, expiries, reminders. */
  audit: 'tollgate.audit',
  /** Internal: the first `upTo` messages of the conversation, for a model step that lost its cache. */
  conversation: 'tollgate.conversation',
  /** Internal: the conversation and tool calls at the end of one step, for a fork (docs/fork.md). */
  forkPoint: 'tollgate.forkPoint',
} as const;

/** Search attributes kept current by every run, with their Temporal types. */
export const SEARCH_ATTRIBUTES = {
  agentId: { name: 'TollgateAgentId', type: 'Keyword' },
  status: { name: 'TollgateStatus', type: 'Keyword' },
  threadId: { name: 'TollgateThreadId', type: 'Keyword' },
  resourceId: { name: 'TollgateResourceId', type: 'Keyword' },
  pendingTools: { name: 'TollgatePendingTools', type: 'KeywordList' },
  /** Set at start on a fork only: the run it was forked from (docs/fork.md). */
  forkedFrom: { name: 'TollgateForkedFrom', type: 'Keyword' },
} as const;

export type SearchAttributeSpec = (typeof SEARCH_ATTRIBUTES)[keyof typeof SEARCH_ATTRIBUTES];

/** Workflow type of a memory thread: one per agent, resource and thread. */
export const THREAD_WORKFLOW = 'agentThread';

/** Internal names of the thread workflow and of auto-resume. */
export const THREAD_MESSAGES = {
  append: 'tollgate.threadAppend',
  messages: 'tollgate.threadMessages',
} as const;

export const AUTO_RESUME_UPDATE = 'tollgate.autoResume';

/**
 * Internal update of a run: answers, once the run's log holds a `finish` at or after the offset it
 * names, the log from there (a `ChunkSlice`); sent by clients with `follow: 'update'`.
 */
export const FOLLOW_UPDATE = 'tollgate.follow';

/**
 * Workflow id of a memory thread: `tollgate-thread/<agent>/<resource>/<thread>`, each part with
 * `%` and `/` percent-encoded so no two (agent, resource, thread) share an id. Parts without
 * those characters are kept as they are, so their threads keep the id they always had.
 */
export function threadWorkflowId(agentId: string, resourceId: string, threadId: string): string {
  return ['tollgate-thread', ...[agentId, resourceId, threadId].map(encodeThreadIdPart)].join('/');
}

function encodeThreadIdPart(part: string): string {
  return part.replace(/%/g, '%25').replace(/\//g, '%2F');
}

/** Internal signal: a sub-agent's run reports what it waits on to its parent run. */
export const CHILD_STATUS_SIGNAL = 'tollgate.childStatus';

/** Values of `TollgateStatus`. */
export type RunStatus =
  'running' | 'awaiting-approval' | 'suspended' | 'completed' | 'failed' | 'cancelled';

/** Workflow type of an agent directory entry: one per task queue and agent, kept open. */
export const AGENT_DIRECTORY_WORKFLOW = 'agentDirectoryEntry';

/** Internal updates of a directory entry: a worker publishes or withdraws its hosting. */
export const DIRECTORY_UPDATES = {
  publish: 'tollgate.directoryPublish',
  withdraw: 'tollgate.directoryWithdraw',
} as const;

/** Memo key under which a directory entry keeps its `DirectoryEntryState`. */
export const DIRECTORY_MEMO_KEY = 'tollgateAgent';

/**
 * Workflow id of the directory entry of `agentId` on `taskQueue`. Both parts are URI-encoded, so
 * no `/` inside a name can make two entries share an id.
 */
export function agentDirectoryId(taskQueue: string, agentId: string): string {
  return `tollgate-agent/${encodeURIComponent(taskQueue)}/${encodeURIComponent(agentId)}`;
}

/** Workflow type of the grants registry: one per task queue, kept open (docs/grants.md). */
export const GRANTS_WORKFLOW = 'grantsRegistry';

/** Internal updates of the grants registry. */
export const GRANTS_UPDATES = {
  create: 'tollgate.grantCreate',
  revoke: 'tollgate.grantRevoke',
} as const;

/** Memo key under which the grants registry keeps its `GrantsState`. */
export const GRANTS_MEMO_KEY = 'tollgateGrants';

/**
 * Workflow type of one shared budget's counter: one per task queue, agent, scope, key and UTC day
 * (docs/budgets.md "Shared budgets"); it closes a day after its day ends.
 */
export const BUDGET_COUNTER_WORKFLOW = 'budgetCounter';

/** Internal update of a counter: adds one step's usage, answers the new total. */
export const BUDGET_COUNTER_UPDATES = { commit: 'tollgate.budgetCommit' } as const;

/** Memo key under which a counter shows its scope, key, day and summed usage. */
export const BUDGET_COUNTER_MEMO_KEY = 'tollgateBudgetSpend';

/** Workflow type of the stored pins of one MCP server on one task queue, kept open (docs/mcp.md). */
export const MCP_PINS_WORKFLOW = 'mcpPinsRegistry';

/** Internal updates of an MCP pins record. */
export const MCP_PINS_UPDATES = {
  pin: 'tollgate.mcpPin',
  repin: 'tollgate.mcpRepin',
} as const;

/** Memo key under which an MCP pins record keeps its `McpPinsState`. */
export const MCP_PINS_MEMO_KEY = 'tollgateMcpPins';

/** Workflow id of the pins of MCP server `server` on `taskQueue`; both parts URI-encoded. */
export function mcpPinsId(taskQueue: string, server: string): string {
  return `tollgate-mcp-pins/${encodeURIComponent(taskQueue)}/${encodeURIComponent(server)}`;
}

/**
 * The task queue of one agent's activities (model steps, tool calls, its policies and hooks) on
 * `taskQueue`: only workers hosting the agent poll it, so its work never reaches a worker that
 * cannot do it and waits in Temporal while none runs (docs/workers.md "Fleets").
 */
export function agentTaskQueue(taskQueue: string, agentId: string): string {
  return `${taskQueue}/agent/${agentId}`;
}

/** Workflow id of the grants registry of `taskQueue` (URI-encoded, like directory entries). */
export function grantsRegistryId(taskQueue: string): string {
  return `tollgate-grants/${encodeURIComponent(taskQueue)}`;
}

/** Workflow type of the live approval policies of one task queue, kept open (docs/live-policies.md). */
export const LIVE_POLICIES_WORKFLOW = 'livePoliciesRegistry';

/** Memo key under which the live policies registry keeps its `LivePoliciesState`. */
export const LIVE_POLICIES_MEMO_KEY = 'tollgateLivePolicies';

/** Update of the registry (a change) and of `agentRun` (a run told of a change). */
export const LIVE_POLICY_UPDATES = {
  change: 'tollgate.livePolicyChange',
  run: 'tollgate.livePolicy',
} as const;

/** Workflow id of the live policies registry of `taskQueue`. */
export function livePoliciesRegistryId(taskQueue: string): string {
  return `tollgate-live-policies/${encodeURIComponent(taskQueue)}`;
}

/**
 * Memo key of a run started with `patchMarkers: 'one'` (docs/workflow-changes.md "One marker for
 * new runs"): its value `'one'` tells the run to record one patch marker for every patch of
 * generation 9 and before, instead of one each.
 */
export const PATCH_MARKERS_MEMO_KEY = 'tollgatePatchMarkers';

/** The memo that makes a run record one patch marker: set by its starter, or by its parent run. */
export const ONE_MARKER_MEMO: Readonly<Record<string, 'one'>> = { [PATCH_MARKERS_MEMO_KEY]: 'one' };

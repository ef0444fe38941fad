/**
 * The ids of Tollgate's workflow patches (docs/workflow-changes.md), in one module that imports
 * nothing, so `patch-markers.ts` can list them without an import cycle.
 */

/**
 * Runs that record this patch send their agent's activities (describe, model steps, tool calls,
 * policies, reminders, compaction, resume-data extraction) to the agent's own task queue, which
 * only workers hosting the agent poll. Runs started before it keep using the run's task queue.
 */
export const AGENT_QUEUES_PATCH = 'tollgate-agent-queues';

/**
 * Runs that record this patch (with `AGENT_QUEUES_PATCH`) schedule their describe, model steps
 * and tool calls on the run's own task queue first, where Temporal hands them to the worker that
 * completed the workflow task in its answer (eager dispatch); a worker that does not host the
 * agent fails the attempt with `AGENT_NOT_FOUND` before anything runs, and the work is scheduled
 * again on the agent's queue, as every later one of the run is (`onAgentHost`).
 */
export const HERE_FIRST_PATCH = 'tollgate-agent-work-here-first';

/**
 * The patch a run records when it completes only after its signal and update handlers have: an
 * update handler may still be passing a decision down to a sub-agent's run when the run completes,
 * and completing then would cut it off. Runs that completed before it replay without the wait.
 */
export const HANDLERS_FINISHED_PATCH = 'tollgate-handlers-finished';

/** Runs whose agent has channels post their waiting calls to them (docs/channels.md). */
export const CHANNELS_PATCH = 'tollgate-channels';

/**
 * Runs that record this patch compact their conversation at a step boundary with the agent's
 * `conversation.compact`; it is recorded at the first compaction (up front for local-mode runs),
 * so histories from before replay unchanged.
 */
export const COMPACTION_PATCH = 'tollgate-conversation-compaction';

/**
 * Runs that record this patch continue as new when their history grows long; runs whose history
 * never reached the threshold record nothing, and histories from before it replay unchanged.
 */
export const CONTINUE_AS_NEW_PATCH = 'tollgate-continue-as-new';

/** Patch of the signal path: decisions carrying a `deadline` (refused as unknown before it). */
export const DEADLINE_PATCH = 'tollgate-decision-deadline';

/**
 * Patch of a call whose tool changed between its gate and its execution: it waits for a new
 * approval that shows the change (docs/mcp.md "Pinning"). Before it, such a call ended with a
 * tool error.
 */
export const DEFINITION_REGATE_PATCH = 'tollgate-definition-regate';

/** Patch of the gate: gated calls covered by a grant run without waiting (docs/grants.md). */
export const GRANTS_PATCH = 'tollgate-grants';

/**
 * Runs that record this patch let a request only tighten the agent's gates and rules (issue 24):
 * its `requireToolApproval` adds gates to the agent's default instead of replacing it, and its
 * `approval` narrows. Runs started before keep replacing field by field, for their whole life:
 * the code that started them assumed it.
 */
export const REQUEST_TIGHTENS_PATCH = 'tollgate-request-tightens';

/**
 * Runs that record this patch leave out a search-attribute upsert or a report to the parent that
 * would carry exactly what the previous one did. It is asked only when such a repeat is about to
 * be left out, so a run without repeats records no marker and its history is as before.
 */
export const PUBLISH_ON_CHANGE_PATCH = 'tollgate-publish-on-change';

/**
 * Local-mode runs that record this patch make consecutive ungated local steps as one local
 * activity, a stretch (docs/local-execution.md "Stretches"). Decided before any local work
 * (`patchesBeforeLocalWork`), and asked only by local-mode runs: other runs record nothing.
 */
export const STRETCHES_PATCH = 'tollgate-stretches';

/**
 * Runs that record this patch name their tools by their key in the agent's `tools` (SPEC §1
 * "Tool names"); runs started before it keep the tools' ids, for their whole life.
 */
export const TOOL_KEYS_PATCH = 'tollgate-tool-keys';

/**
 * Runs that record this patch end the stream's stretch when a decline (or an expiry that
 * declines) leaves the run only waiting on other calls, as a finished tool does: the `suspended`
 * finish and the waiting status. Asked only then, so other runs record no marker.
 */
export const DECLINE_ENDS_STRETCH_PATCH = 'tollgate-decline-ends-stretch';

/** The patch a run records when it starts handling updates after events. */
export const UPDATES_AFTER_EVENTS_PATCH = 'tollgate-updates-after-events';

/**
 * Runs that record this patch (generation `8-run-grants-decided-notices` of the replay fixtures)
 * let a run grant reach past the call that gave it: it approves the tool's calls already waiting
 * in the run, and it is carried into the run's next execution at a continue-as-new
 * (docs/grants.md "For this run"); and they rewrite a call's Slack message when the call is
 * decided outside Slack (docs/slack.md). The patch is asked only where one of these happens: a
 * run grant covers a waiting call, a run with run grants continues as new, or a call with Slack
 * notices is decided by anything but a click in Slack. Histories without one replay as before.
 */
export const GRANTS_NOTICES_PATCH = 'tollgate-run-grants-decided-notices';

/**
 * Runs that record this patch describe their agent as a local activity in their first workflow
 * task, not as an activity a workflow task later, and decide before it every patch they would
 * otherwise decide before their first local work (`describeRun`). Asked only by runs started
 * with `RunInput.describeLocally`, which a starter sets for an agent it hosts that does local
 * work (docs/local-execution.md "The describe"), or with `RunInput.describeHere`, which a starter
 * whose runs record one patch marker sets for the others. Other runs record nothing.
 */
export const LOCAL_DESCRIBE_PATCH = 'tollgate-local-describe';

/**
 * Runs that record this patch move local work that a worker without the agent refused (a local
 * model step, stretch, tool call or describe) to the agent's queue, as they do remote work; such a
 * refusal reaches the workflow unwrapped, and runs before it failed on it with `AGENT_NOT_FOUND`.
 * Asked only when a local activity is refused that way, so other runs record nothing.
 */
export const LOCAL_REFUSAL_PATCH = 'tollgate-local-refusal-moves';

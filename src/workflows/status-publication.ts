import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PendingToolCall } from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import type { RunStatus } from '../common/wire.js';
import { currentDetails } from './current-details.js';
import type { WaitingCalls } from './waiting-calls.js';

/** What a sub-agent's run tells its parent: whether it only waits, and on which calls. */
export interface WaitingReport {
  idle: boolean;
  waiting: PendingToolCall[];
}

/**
 * Shows the run's status outside the workflow: the search attributes listings and the inbox
 * filter on, Temporal UI's current details, and, for a sub-agent's run, the report to its parent.
 */
export class StatusPublisher {
  /** Reports a sub-agent's run has sent its parent, over all its executions. */
  parentReports = 0;
  /** Set in a sub-agent's run: sends the parent what the run waits on. */
  reportToParent: ((report: WaitingReport) => void) | undefined;

  constructor(
    private readonly calls: WaitingCalls,
    private readonly idle: () => boolean,
  ) {}

  publish(status: RunStatus): void {
    const waiting = this.calls.inOrder();
    // Searchable by the name and, where it differs, by the tool's id.
    const pendingTools = [
      ...new Set(waiting.flatMap((call) => [call.toolName, ...(call.toolId ? [call.toolId] : [])])),
    ];
    upsertSearchAttributes([
      { key: SA_KEYS.status, value: status },
      { key: SA_KEYS.pendingTools, value: pendingTools.length > 0 ? pendingTools : null },
    ]);
    setCurrentDetails(currentDetails(status, waiting));
    this.reportToParent?.({ idle: this.idle(), waiting: this.calls.pendingToolCalls() });
  }
}

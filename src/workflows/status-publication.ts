import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import type { PendingToolCall } from '../common/run-types.js';
import { SA_KEYS } from '../common/search-attribute-keys.js';
import type { RunStatus } from '../common/wire.js';
import { currentDetails } from './current-details.js';
import type { WaitingCalls } from './waiting-calls.js';
import { isPatched } from './patch-markers.js';
import { PUBLISH_ON_CHANGE_PATCH } from './patch-ids.js';

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

  /** The last search attributes upserted and the last report sent, as JSON. */
  private upserted: string | undefined;
  private reported: string | undefined;
  /** Whether repeats are left out; `undefined` until a repeat asks the patch. */
  private skipRepeats: boolean | undefined;

  constructor(
    private readonly calls: WaitingCalls,
    private readonly idle: () => boolean,
  ) {}

  /**
   * Publishes every repeat, as before the patch. For runs that do local work: a local activity's
   * result may reach code after it one workflow task later than on replay, where a `patched()`
   * asked there would fail (see `patchesBeforeLocalWork`).
   */
  keepRepeats(): void {
    this.skipRepeats = false;
  }

  /**
   * Decides now, before the run's first local work, whether repeats are left out, so that no
   * patch is asked after it. Free in a run that records one marker, whose marker stands for the
   * patch.
   */
  decideRepeats(): void {
    this.skipsRepeats();
  }

  publish(status: RunStatus): void {
    const waiting = this.calls.inOrder();
    // Searchable by the name and, where it differs, by the tool's id.
    const pendingTools = [
      ...new Set(waiting.flatMap((call) => [call.toolName, ...(call.toolId ? [call.toolId] : [])])),
    ];
    const attributes = JSON.stringify([status, pendingTools]);
    if (attributes !== this.upserted || !this.skipsRepeats()) {
      this.upserted = attributes;
      upsertSearchAttributes([
        { key: SA_KEYS.status, value: status },
        { key: SA_KEYS.pendingTools, value: pendingTools.length > 0 ? pendingTools : null },
      ]);
    }
    // Not a command: Temporal UI reads it with a query.
    setCurrentDetails(currentDetails(status, waiting));
    if (this.reportToParent) this.report(this.reportToParent);
  }

  private report(send: (report: WaitingReport) => void): void {
    const report = { idle: this.idle(), waiting: this.calls.pendingToolCalls() };
    const text = JSON.stringify(report);
    if (text === this.reported && this.skipsRepeats()) return;
    this.reported = text;
    send(report);
  }

  private skipsRepeats(): boolean {
    this.skipRepeats ??= isPatched(PUBLISH_ON_CHANGE_PATCH);
    return this.skipRepeats;
  }
}

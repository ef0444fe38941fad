import type { Usage } from '../common/chunks.js';
import type { ChunkLog } from './chunk-log.js';
import type { StatusPublisher } from './status-publication.js';
import type { WaitingCalls } from './waiting-calls.js';

/**
 * Idle accounting: which of the run's tools and sub-agent runs are running, and whether the run
 * only waits. A run that only waits ends the stream of its current stretch with a `suspended`
 * finish and shows as waiting, once per idle stretch.
 */
export class RunActivity {
  private running = 0;
  /** Sub-agent runs that report they only wait: they count as not running. */
  private readonly idleChildren = new Set<string>();
  private idleAnnounced = false;

  constructor(
    private readonly calls: WaitingCalls,
    private readonly log: ChunkLog,
    private readonly status: StatusPublisher,
    private readonly usage: () => Usage,
  ) {}

  toolStarted(): void {
    this.running++;
  }

  toolFinished(): void {
    this.running--;
    this.announceIdle();
  }

  /** A sub-agent run reported whether it only waits; a finished one is no longer counted. */
  childIdle(toolCallId: string, idle: boolean): void {
    if (idle) this.idleChildren.add(toolCallId);
    else this.idleChildren.delete(toolCallId);
  }

  /** Calls wait and nothing runs, counting a child run that itself only waits as not running. */
  get idle(): boolean {
    return this.running - this.idleChildren.size === 0 && this.calls.waiting.size > 0;
  }

  /**
   * When nothing runs and calls wait, the stream of the current stretch ends with a `suspended`
   * finish, and Temporal UI shows the run as waiting. Announced once per idle stretch.
   */
  announceIdle(): void {
    if (!this.idle || this.idleAnnounced) return;
    this.idleAnnounced = true;
    this.status.publish(this.calls.awaitsApproval() ? 'awaiting-approval' : 'suspended');
    this.log.emit('finish', { finishReason: 'suspended', usage: this.usage() });
  }

  /** Something runs again (a decision, an expiry, a child at work): a new stretch begins. */
  resumed(): void {
    this.idleAnnounced = false;
    this.status.publish('running');
  }
}

import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
  type Client,
} from '@temporalio/client';
import type {
  AgentDescription,
  AgentListing,
  DirectoryEntryState,
  Publication,
} from '../common/directory-types.js';
import { TollgateError } from '../common/errors.js';
import {
  AGENT_DIRECTORY_WORKFLOW,
  agentDirectoryId,
  agentTaskQueue,
  DIRECTORY_MEMO_KEY,
} from '../common/wire.js';
import { directoryPublishUpdate, directoryWithdrawUpdate } from '../common/messages.js';
import { isTemporalUnreachable } from './errors.js';
import { quote } from './list-suspended-runs.js';
import { recentPollers } from './worker-pollers.js';

/** How long a positive lookup is trusted before the directory is asked again, ms. */
const KNOWN_FOR_MS = 30_000;
/** After this long, a publication not yet applied is reported in the log, ms. */
const PUBLISH_WAIT_MS = 30_000;
/** How long `shutdown()` waits for its worker's withdrawal to be applied, ms. */
const WITHDRAW_WAIT_MS = 5_000;

/**
 * The agent directory of one task queue, kept in Temporal only: one open `agentDirectoryEntry`
 * workflow per agent, its state in its memo, so it is read (described, listed) with no worker.
 */
export class AgentDirectory {
  /** Agents found in the directory, by id: until when the answer is trusted (ms). */
  private readonly known = new Map<string, number>();

  constructor(
    private readonly client: () => Promise<Client>,
    readonly taskQueue: string,
    /** A worker that polled within this long counts as available, ms. */
    private readonly seenWithinMs: number,
  ) {}

  /**
   * Resolves when the directory lists `agentId`; only positive answers are cached, since a
   * worker may publish the agent at any moment.
   *
   * @throws TollgateError `AGENT_NOT_FOUND` when no worker ever published it (or it was removed).
   */
  async require(agentId: string): Promise<void> {
    if ((this.known.get(agentId) ?? 0) > Date.now()) return;
    if (!(await this.entryOf(await this.client(), agentId))) {
      // Names only what the caller sent: the message may travel to HTTP callers.
      throw new TollgateError(
        'AGENT_NOT_FOUND',
        `No agent "${agentId}" is known: no worker hosting it has published it; check the agent id, or start a worker that hosts it.`,
      );
    }
    this.known.set(agentId, Date.now() + KNOWN_FOR_MS);
  }

  /**
   * The agent's published description (its tools, by the names the model sees).
   *
   * @throws TollgateError `AGENT_NOT_FOUND` when no worker ever published it (or it was removed).
   */
  async description(agentId: string): Promise<AgentDescription> {
    const entry = await this.entryOf(await this.client(), agentId);
    if (!entry) {
      throw new TollgateError(
        'AGENT_NOT_FOUND',
        `No agent "${agentId}" is known: no worker hosting it has published it; check the agent id.`,
      );
    }
    return entry.agent;
  }

  /** Every agent listed on this task queue, by id, with whether a worker that hosts it polls now. */
  async list(): Promise<AgentListing[]> {
    const client = await this.client();
    const query = `WorkflowType = ${quote(AGENT_DIRECTORY_WORKFLOW)} AND ExecutionStatus = 'Running' AND TaskQueue = ${quote(this.taskQueue)}`;
    const ids: string[] = [];
    for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
    // Visibility finds the entries; each one's own describe() has its latest memo.
    const entries = (await Promise.all(ids.map((id) => describeEntry(client, id)))).filter(
      (entry) => entry !== undefined,
    );
    // Available: a worker that published the agent (and has not withdrawn) polls the agent's own
    // queue, where its model steps and tool calls wait.
    const hosts = await Promise.all(
      entries.map(async ({ agent }) => {
        const queue = agentTaskQueue(this.taskQueue, agent.agentId);
        const pollers = await recentPollers(client, queue, this.seenWithinMs, 'activity');
        return new Set([...pollers.values()].map((poller) => poller.identity));
      }),
    );
    return entries
      .map(({ agent, publishedAt, workers }, index) => ({
        ...agent,
        taskQueue: this.taskQueue,
        lastPublishedAt: publishedAt,
        available: Object.keys(workers).some((worker) => hosts[index]!.has(worker)),
      }))
      .sort((a, b) => a.agentId.localeCompare(b.agentId));
  }

  /**
   * Retires the agent's entry: runs are refused until a worker hosting it starts again. For an
   * agent taken out of a deployment (a worker cannot know what other deployments host).
   *
   * @throws TollgateError `AGENT_NOT_FOUND` when the directory does not list it.
   */
  async remove(agentId: string): Promise<void> {
    const client = await this.client();
    this.known.delete(agentId);
    if (!(await this.entryOf(client, agentId))) {
      throw new TollgateError(
        'AGENT_NOT_FOUND',
        `No agent "${agentId}" is listed, so there is nothing to remove; check the agent id.`,
      );
    }
    await client.workflow
      .getHandle(agentDirectoryId(this.taskQueue, agentId))
      .terminate('removed from the agent directory');
  }

  /**
   * Publishes that `worker` hosts `agents`: a new entry says so at once; an existing one once a
   * worker of the queue applies the update (not awaited). A failure is logged, not thrown: the
   * worker serves runs already started even when its agents cannot be published.
   */
  async publish(agents: AgentDescription[], worker: string): Promise<void> {
    await this.publishAll(agents, worker).catch((error: unknown) =>
      console.warn(
        `[tollgate] the agents of task queue '${this.taskQueue}' could not be published; new runs of them are refused until a worker publishes them:`,
        error,
      ),
    );
  }

  private async publishAll(agents: AgentDescription[], worker: string): Promise<void> {
    const client = await this.client();
    await Promise.all(
      agents.map(async (agent) => {
        const at = new Date().toISOString();
        const publication: Publication = { agent, worker, at };
        const initial: DirectoryEntryState = { agent, publishedAt: at, workers: { [worker]: at } };
        const workflowId = agentDirectoryId(this.taskQueue, agent.agentId);
        try {
          await client.workflow.start(AGENT_DIRECTORY_WORKFLOW, {
            workflowId,
            taskQueue: this.taskQueue,
            args: [initial],
            memo: { [DIRECTORY_MEMO_KEY]: initial },
            workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
            workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
            staticSummary: `Agent directory entry of ${agent.agentId}`,
          });
          return; // A new entry says it all already.
        } catch (error) {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        }
        // An open entry learns of this worker from an update, applied by a worker of the queue:
        // not awaited, since a crashed worker's sticky queue can hold it for seconds.
        const applied = client.workflow
          .getHandle(workflowId)
          .executeUpdate(directoryPublishUpdate, { args: [publication] });
        void bounded(applied, PUBLISH_WAIT_MS, `publishing agent "${agent.agentId}"`);
      }),
    );
  }

  /** Records that `worker` stops hosting `agentIds`, so listings stop counting it at once. */
  async withdraw(agentIds: string[], worker: string): Promise<void> {
    const client = await this.client();
    await Promise.all(
      agentIds.map((agentId) =>
        bounded(
          client.workflow
            .getHandle(agentDirectoryId(this.taskQueue, agentId))
            .executeUpdate(directoryWithdrawUpdate, { args: [worker] })
            // A removed entry lists nobody: nothing to withdraw from.
            .catch((error: unknown) => {
              if (!(error instanceof WorkflowNotFoundError)) throw error;
            }),
          WITHDRAW_WAIT_MS,
          `withdrawing agent "${agentId}"`,
        ),
      ),
    );
  }

  private async entryOf(client: Client, agentId: string): Promise<DirectoryEntryState | undefined> {
    const id = agentDirectoryId(this.taskQueue, agentId);
    try {
      return await describeEntry(client, id);
    } catch (error) {
      if (!isTemporalUnreachable(error)) throw error;
      throw new TollgateError(
        'TEMPORAL_UNAVAILABLE',
        `Temporal could not be reached to look up agent "${agentId}"; nothing was started, try again when the server is back.`,
        { cause: error },
      );
    }
  }
}

/** The state of an open directory entry; `undefined` when there is none or it was retired. */
async function describeEntry(
  client: Client,
  workflowId: string,
): Promise<DirectoryEntryState | undefined> {
  try {
    const description = await client.workflow.getHandle(workflowId).describe();
    if (description.type !== AGENT_DIRECTORY_WORKFLOW || description.status.name !== 'RUNNING') {
      return undefined;
    }
    return description.memo?.[DIRECTORY_MEMO_KEY] as DirectoryEntryState | undefined;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * Waits for `work` at most `ms`; a failure or a timeout is logged, not thrown: the directory is
 * best kept current, but a worker must start and stop even when it cannot be.
 */
async function bounded(work: Promise<unknown>, ms: number, what: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`no worker applied it within ${ms} ms`), ms);
  });
  const failed = work.then(
    () => undefined,
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  try {
    const problem = await Promise.race([failed, late]);
    if (problem !== undefined) console.warn(`[tollgate] agent directory: ${what}: ${problem}`);
  } finally {
    clearTimeout(timer);
  }
}

import type { WorkflowExecutionDescription } from '@temporalio/client';
import { SA_KEYS } from '../common/search-attribute-keys.js';

/**
 * What a run is that never changes after it starts: its agent, memory thread and resource
 * (search attributes set at start), the resource of the run at the top of its sub-agent tree,
 * and its task queue. Whether it is open, and the build it is pinned to, do change: they are
 * never kept here.
 */
export interface RunFacts {
  /** Undefined for a workflow that is not an agent run. */
  agentId: string | undefined;
  taskQueue: string;
  threadId: string | undefined;
  resourceId: string | undefined;
  /** The top run's resource (a scope by resource judges by it); absent until looked up. */
  top?: { resourceId: string | undefined };
}

/** How many runs a cache keeps by default: about a megabyte at most. */
export const RUN_FACTS_CAPACITY = 5_000;

/**
 * The facts of the runs a runtime has started or described, the least recently used dropped
 * first, so a decision on a known run needs no `describe()` to check who may make it.
 */
export class RunFactsCache {
  // A Map iterates in insertion order: re-inserting on use keeps the oldest first.
  private readonly runs = new Map<string, RunFacts>();

  constructor(private readonly capacity = RUN_FACTS_CAPACITY) {}

  get(runId: string): RunFacts | undefined {
    const facts = this.runs.get(runId);
    if (facts) {
      this.runs.delete(runId);
      this.runs.set(runId, facts);
    }
    return facts;
  }

  set(runId: string, facts: RunFacts): void {
    this.runs.delete(runId);
    this.runs.set(runId, facts);
    if (this.runs.size > this.capacity) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
  }

  get size(): number {
    return this.runs.size;
  }
}

/**
 * The facts a description shows. A run with no parent is its own top; a sub-agent's top is
 * `top` when the caller looked it up.
 */
export function factsOf(run: WorkflowExecutionDescription, top?: RunFacts['top']): RunFacts {
  const attributes = run.typedSearchAttributes;
  const resourceId = attributes.get(SA_KEYS.resourceId);
  const up = run.rootExecution?.workflowId ?? run.parentExecution?.workflowId;
  const isTop = !up || up === run.workflowId;
  const known = isTop ? { resourceId } : top;
  return {
    agentId: attributes.get(SA_KEYS.agentId),
    taskQueue: run.taskQueue,
    threadId: attributes.get(SA_KEYS.threadId),
    resourceId,
    ...(known ? { top: known } : {}),
  };
}

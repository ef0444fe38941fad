/**
 * Checks the history scenarios share (`history-scenarios.ts`, `history-stretch-scenario.ts`): a
 * wrong recording fails here and never reaches the fixture folder.
 */
import type { AgentClient, Tollgate } from '../../src/index.js';
import { chunksOf } from './harness.js';

/** One history to write: `<name>.json` gets the history of that workflow execution. */
export interface Recording {
  name: string;
  workflowId: string;
  /** A particular run of the workflow id (continue-as-new chains); default: the latest. */
  runId?: string;
}

export interface Scenario {
  /** The fixtures this scenario writes, in order; `play` returns exactly these. */
  fixtures: string[];
  play(tollgate: Tollgate): Promise<Recording[]>;
}

export function expectEqual(
  scenario: string,
  what: string,
  actual: unknown,
  expected: unknown,
): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw new Error(
      `${scenario}: ${what} was ${JSON.stringify(actual)}, expected ${JSON.stringify(expected)}.`,
    );
  }
}

/** Starts `prompt` as run `runId` and drains the stream up to the run's first wait. */
export async function startSuspended(agent: AgentClient, prompt: string, runId: string) {
  const stream = await agent.stream(prompt, { runId });
  await chunksOf(stream);
  if ((await stream.finishReason) !== 'suspended')
    throw new Error(`${runId}: the run did not wait for a decision.`);
  return stream;
}

export async function resultOf(tollgate: Tollgate, runId: string): Promise<{ text: string }> {
  return (await tollgate.client()).workflow.getHandle(runId).result() as Promise<{ text: string }>;
}

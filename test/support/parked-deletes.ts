import { expect } from '@jest/globals';
import type { AgentClient, RunOptions } from '../../src/index.js';
import type { Execution } from './harness.js';

/**
 * The channel tests' runs: "delete <id>" parks on the gated delete-record tool. `park` starts one
 * and answers its run id and waiting call; `executionsOf` counts the tool's runs for one id.
 */
export function parkedDeletes(agent: () => AgentClient, executions: Execution[]) {
  return {
    executionsOf: (id: string) => executions.filter((e) => (e.input as { id: string }).id === id),
    async park(id: string, options: RunOptions = {}) {
      const first = await agent().generate(`delete ${id}`, options);
      expect(first.finishReason).toBe('suspended');
      const [call] = await agent().pendingToolCalls(first.runId);
      return { runId: first.runId, call: call! };
    },
  };
}

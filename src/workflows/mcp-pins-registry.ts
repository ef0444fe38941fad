import { setHandler, upsertMemo } from '@temporalio/workflow';
import { tollgateFailure } from '../common/failure.js';
import { repinProblem, withoutPins, withPins, type McpPinsState } from '../common/mcp-pins.js';
import { mcpPinUpdate, mcpRepinUpdate } from '../common/messages.js';
import { MCP_PINS_MEMO_KEY } from '../common/wire.js';
import { keepOpen } from './registry-lifetime.js';

/**
 * The stored pins of one MCP server on one task queue (docs/mcp.md), open for as long as the
 * server is used. Its state lives in its memo, so workers and the CLI read it without a query.
 */
export async function mcpPinsRegistry(initial: McpPinsState): Promise<void> {
  let state = initial;
  const keep = (next: McpPinsState) => {
    if (next === state) return;
    state = next;
    upsertMemo({ [MCP_PINS_MEMO_KEY]: state });
  };
  setHandler(mcpPinUpdate, (offered) => {
    keep(withPins(state, offered));
    return state;
  });
  setHandler(
    mcpRepinUpdate,
    (request) => {
      keep(withoutPins(state, request, new Date().toISOString()));
      return state;
    },
    {
      validator: (request) => {
        const problem = repinProblem(state, request);
        if (problem) throw tollgateFailure(problem.code, problem.message);
      },
    },
  );
  await keepOpen(MCP_PINS_MEMO_KEY, () => state);
}

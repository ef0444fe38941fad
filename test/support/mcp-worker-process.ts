/**
 * A worker in its own process hosting `mcp-restart-agent`, whose tools come from the MCP server at
 * MCP_URL (Streamable HTTP), for the test that kills the worker while a call waits on an
 * elicitation. Env: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TASK_QUEUE, MCP_URL.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { hostAgentInChild } from '../../bench/support/child.js';
import { Agent } from '../../src/index.js';
import { mcpTools } from '../../src/mcp/index.js';
import { scriptedModel } from '../../src/testing/index.js';
import { callByPrompt } from './mcp-fixtures.js';

Runtime.install({ logger: new DefaultLogger('WARN') });

const url = process.env.MCP_URL;
if (!url) throw new Error('mcp-worker-process: MCP_URL is not set.');

const agent = new Agent({
  id: 'mcp-restart-agent',
  instructions: 'You are a test agent whose worker gets killed.',
  model: scriptedModel(callByPrompt, 'mcp-restart-agent'),
  tools: await mcpTools({ name: 'bank', url }),
});

await hostAgentInChild('mcp-worker-process', agent);

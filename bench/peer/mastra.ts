/**
 * The same scripted agent run by Mastra in-process, with LibSQL file storage (the snapshot an
 * approval resumes from lives there): the per-step loop (one tool call per step, then text) and
 * a gated tool's approve → `execute` start → run end. Mastra is loaded from the scratch folder
 * `installPeer()` fills, so its types are declared here, narrowed to what the bench calls.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptedModel, type TurnPicker } from '../../src/testing/scripted-model.js';
import { loopPicker, loopPrompt } from '../bench-model.js';
import { expectThat } from '../stats.js';
import type { PeerModules } from './install.js';

interface MastraOutput {
  runId: string;
  finishReason?: string;
  steps?: unknown[];
  text?: string;
}
interface MastraStream {
  fullStream: AsyncIterable<{ type: string }>;
  getFullOutput(): Promise<MastraOutput>;
}
interface MastraAgent {
  generate(prompt: string, options?: { maxSteps?: number }): Promise<MastraOutput>;
  approveToolCall(options: { runId: string }): Promise<MastraStream>;
}
type CreateTool = (options: {
  id: string;
  description: string;
  inputSchema: unknown;
  requireApproval?: boolean;
  execute: (input: Record<string, unknown>) => Promise<unknown>;
}) => unknown;

const LOOP_AGENT = 'peerLoop';
const GATED_AGENT = 'peerGated';
const GATED_TOOL = 'gated-lookup';

export interface PeerApprovalSample {
  toToolStartMs: number;
  toRunEndMs: number;
}

export interface MastraPeer {
  version: string;
  /** One run of `steps` model steps; checks the tool ran steps-1 times. */
  runSteps(steps: number): Promise<void>;
  /** One run that suspends on the gated tool, then its approval, timed. */
  approveOnce(): Promise<PeerApprovalSample>;
  close(): Promise<void>;
}

const gatedOnce: TurnPicker = (prompt) =>
  prompt.some((message) => message.role === 'tool')
    ? { text: 'Done.' }
    : { text: 'Looking it up.', toolCalls: [{ toolName: GATED_TOOL, args: { id: 'rec-1' } }] };

export async function startMastraPeer(modules: PeerModules): Promise<MastraPeer> {
  const [{ Mastra }, { Agent }, { createTool }, { LibSQLStore }, { z }] = (await Promise.all([
    import(modules.url('@mastra/core', 'dist/mastra/index.js')),
    import(modules.url('@mastra/core', 'dist/agent/index.js')),
    import(modules.url('@mastra/core', 'dist/tools/index.js')),
    import(modules.url('@mastra/libsql', 'dist/index.js')),
    import(modules.url('zod', 'index.js')),
  ])) as [
    { Mastra: new (config: object) => { getAgent(id: string): MastraAgent } },
    { Agent: new (config: object) => unknown },
    { createTool: CreateTool },
    { LibSQLStore: new (config: { id: string; url: string }) => unknown },
    { z: typeof import('zod').z },
  ];
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-bench-peer-'));
  let executions = 0;
  const toolStarts = new Map<string, number>();
  let currentRun = '';

  const lookup = createTool({
    id: 'lookup',
    description: 'Looks up the item of a step.',
    inputSchema: z.object({ step: z.number() }),
    execute: async (input) => {
      executions++;
      return { step: input.step, item: `item-${String(input.step)}` };
    },
  });
  const gated = createTool({
    id: GATED_TOOL,
    description: 'A lookup that needs approval.',
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    execute: async (input) => {
      toolStarts.set(currentRun, performance.now());
      return { id: input.id, found: true };
    },
  });
  const mastra = new Mastra({
    logger: false,
    storage: new LibSQLStore({ id: 'bench-peer', url: `file:${join(dir, 'mastra.db')}` }),
    agents: {
      [LOOP_AGENT]: new Agent({
        id: LOOP_AGENT,
        name: LOOP_AGENT,
        instructions: 'You are a benchmark agent.',
        model: scriptedModel(loopPicker({ toolName: 'lookup' }), 'bench-peer-loop'),
        tools: { lookup },
      }),
      [GATED_AGENT]: new Agent({
        id: GATED_AGENT,
        name: GATED_AGENT,
        instructions: 'You are a benchmark agent.',
        model: scriptedModel(gatedOnce, 'bench-peer-gated'),
        tools: { [GATED_TOOL]: gated },
      }),
    },
  });
  const loop = mastra.getAgent(LOOP_AGENT);
  const gatedAgent = mastra.getAgent(GATED_AGENT);

  return {
    version: await import(modules.url('@mastra/core', 'package.json'), {
      with: { type: 'json' },
    }).then((m: { default: { version: string } }) => m.default.version),
    async runSteps(steps) {
      const before = executions;
      const output = await loop.generate(loopPrompt(steps), { maxSteps: steps });
      expectThat(
        executions - before === steps - 1,
        `Mastra run executed the tool ${executions - before} times, not ${steps - 1} (finish ${output.finishReason})`,
      );
    },
    async approveOnce() {
      const first = await gatedAgent.generate('Please run the gated lookup.');
      expectThat(
        first.finishReason === 'suspended',
        `Mastra run ${first.runId} did not wait for approval (${first.finishReason})`,
      );
      currentRun = first.runId;
      const approvedAt = performance.now();
      const stream = await gatedAgent.approveToolCall({ runId: first.runId });
      for await (const chunk of stream.fullStream) void chunk;
      const runEnd = performance.now();
      const toolStart = toolStarts.get(first.runId);
      expectThat(toolStart !== undefined, `Mastra's gated tool of ${first.runId} never started`);
      const output = await stream.getFullOutput();
      expectThat(
        output.text?.endsWith('Done.') === true,
        `Mastra run ${first.runId} ended with "${output.text}"`,
      );
      return { toToolStartMs: toolStart - approvedAt, toRunEndMs: runEnd - approvedAt };
    },
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

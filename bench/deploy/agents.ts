/**
 * The agents of the rolling-deploy bench, as two releases ship them:
 *
 * - release A hosts `ops` (gated `restart-service`) and `legacy` (gated `purge-cache`);
 * - release B hosts `ops` with changed tool code (another description and result) and the new
 *   `newcomer` (gated `rotate-key`); it no longer has `legacy`.
 *
 * Each agent's scripted model asks for its one gated tool at step 1 and says which release
 * answered at step 2. Every tool execution is written to one `EffectJournal` shared by both
 * releases (they run in this process), with the release that ran it, so an effect that ran twice
 * is counted exactly.
 */
import { z } from 'zod';
import { Agent, createTool, type Tool, type ToolExecutionContext } from '../../src/index.js';
import { scriptedModel, type TurnPicker } from '../../src/testing/index.js';

export type Release = 'A' | 'B';
export type AgentId = 'ops' | 'legacy' | 'newcomer';

/** The build id each release's workers join the deployment with. */
export const BUILD_IDS: Record<Release, string> = { A: 'release-a', B: 'release-b' };

/** The agents each release hosts. */
export const HOSTED: Record<Release, readonly AgentId[]> = {
  A: ['ops', 'legacy'],
  B: ['ops', 'newcomer'],
};

const TOOL_OF: Record<AgentId, string> = {
  ops: 'restart-service',
  legacy: 'purge-cache',
  newcomer: 'rotate-key',
};

/** One execution of a gated tool. */
export interface Effect {
  runId: string;
  toolCallId: string;
  agentId: AgentId;
  release: Release;
}

/** Every tool execution of both releases, in order. */
export class EffectJournal {
  readonly effects: Effect[] = [];

  record(effect: Effect): void {
    this.effects.push(effect);
  }
}

export function deployPrompt(tag: string): string {
  return `deploy-bench run ${tag}: do your one task.`;
}

/** Step 1: the agent's gated tool, with the run's tag; step 2: which release answered. */
function picker(agentId: AgentId, release: Release): TurnPicker {
  return (prompt) => {
    if (prompt.some((message) => message.role === 'tool'))
      return { text: `Done on release ${release}.` };
    const user = prompt.find((message) => message.role === 'user');
    const tag = /deploy-bench run ([\w-]+)/.exec(JSON.stringify(user?.content ?? ''))?.[1];
    if (!tag) throw new Error(`deploy bench: a prompt without a run tag: ${JSON.stringify(user)}`);
    return {
      toolCalls: [{ toolName: TOOL_OF[agentId], args: { id: tag }, toolCallId: `call-${tag}` }],
    };
  };
}

function gatedTool(
  agentId: AgentId,
  release: Release,
  journal: EffectJournal,
  code: { description: string; result: (id: string) => unknown },
): Tool {
  return createTool({
    id: TOOL_OF[agentId],
    description: code.description,
    inputSchema: z.object({ id: z.string() }),
    requireApproval: true,
    execute: ({ id }: { id: string }, context: ToolExecutionContext) => {
      const { runId, toolCallId } = context.agent;
      journal.record({ runId, toolCallId, agentId, release });
      return code.result(id);
    },
  });
}

/** The tool code of each agent in each release; `ops` changed between A and B. */
const TOOL_CODE: Record<
  AgentId,
  Partial<Record<Release, { description: string; result: (id: string) => unknown }>>
> = {
  ops: {
    A: { description: 'Restarts a service', result: (id) => ({ restarted: id }) },
    B: {
      description: 'Drains a service, then restarts it',
      result: (id) => ({ restarted: id, drainedFirst: true }),
    },
  },
  legacy: { A: { description: 'Purges a cache', result: (id) => ({ purged: id }) } },
  newcomer: { B: { description: 'Rotates a key', result: (id) => ({ rotated: id }) } },
};

/** The agents `release` hosts, writing their effects to `journal`. */
export function releaseAgents(release: Release, journal: EffectJournal): Record<string, Agent> {
  return Object.fromEntries(
    HOSTED[release].map((agentId) => {
      const code = TOOL_CODE[agentId][release]!;
      const agent = new Agent({
        id: agentId,
        instructions: `You are ${agentId} of the deploy bench, release ${release}.`,
        model: scriptedModel(picker(agentId, release), `${agentId}-${release}`, {
          recordPrompts: false,
        }),
        tools: { [TOOL_OF[agentId]]: gatedTool(agentId, release, journal, code) },
      });
      return [agentId, agent];
    }),
  );
}

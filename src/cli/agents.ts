/**
 * `tollgate agents` and `tollgate agents remove <agentId>`: the agent directory of the task
 * queue, read from Temporal alone (no worker needs to run).
 */
import type { CommandHandler } from './command-input.js';
import { openTollgate } from './connect.js';
import { EXIT } from './exit-codes.js';
import { formatTable, relativeTime } from './output.js';

export const agentsList: CommandHandler = async (input) => {
  const { output } = input;
  const tollgate = openTollgate(input.global);
  try {
    output.progress('Reading the agent directory…');
    const agents = await tollgate.listAgents();
    output.document({ taskQueue: tollgate.taskQueue, agents });
    const rows = agents.map((agent) => [
      agent.agentId,
      agent.name,
      agent.available ? 'yes' : 'no worker',
      relativeTime(agent.lastPublishedAt),
      agent.tools.join(', '),
    ]);
    output.line(
      rows.length > 0
        ? formatTable(['AGENT', 'NAME', 'AVAILABLE', 'PUBLISHED', 'TOOLS'], rows)
        : `No agent is published on task queue ${tollgate.taskQueue}: start a worker that hosts them.`,
    );
    return EXIT.ok;
  } finally {
    output.stopProgress();
    await tollgate.shutdown();
  }
};

export const agentsRemove: CommandHandler = async (input) => {
  const { output } = input;
  const agentId = input.args[0]!;
  const tollgate = openTollgate(input.global);
  try {
    await tollgate.removeAgent(agentId);
    output.document({ removed: agentId, taskQueue: tollgate.taskQueue });
    output.line(
      `Removed ${agentId} from the directory of ${tollgate.taskQueue}; a worker hosting it lists it again when it starts.`,
    );
    return EXIT.ok;
  } finally {
    await tollgate.shutdown();
  }
};

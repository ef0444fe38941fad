import { TollgateError } from '../common/errors.js';
import type { ReminderInput } from '../common/run-types.js';
import type { AgentRegistry } from './agent-registry.js';

/** Calls the worker-side `notify` of the policy that asked for reminders (tool's or agent's). */
export async function sendReminder(agents: AgentRegistry, input: ReminderInput): Promise<void> {
  const agent = agents.require(input.agentId);
  const policy =
    input.source === 'tool'
      ? agent.toolsNamedBy(input.toolNaming).get(input.toolName)?.approval
      : agent.defaultOptions.approval;
  const notify = policy?.remind?.notify;
  if (!notify) {
    throw new TollgateError(
      'INVALID_AGENT',
      `No reminder notify function on the ${input.source} policy of "${input.toolName}" in agent "${agent.id}".`,
    );
  }
  const { source: _source, toolNaming: _naming, ...info } = input;
  await notify(info);
}

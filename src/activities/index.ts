import type { Client } from '@temporalio/client';
import { Context } from '@temporalio/activity';
import type { WorkflowBundle } from '@temporalio/worker';
import { conversationQuery } from '../common/messages.js';
import type {
  AgentManifest,
  EvaluateGatesInput,
  ExtractResumeDataInput,
  ReminderInput,
  ExecuteToolInput,
  ModelStepInput,
  ToolNaming,
} from '../common/run-types.js';
import type { LiveDeltaTransport } from '../live/live-transport.js';
import type { AgentRegistry } from './agent-registry.js';
import { ConversationCache } from './conversation-cache.js';
import { describeAgent } from './describe-agent.js';
import { refuseUnhosted, runTool } from './execute-tool.js';
import { Checkpoints } from './checkpoints.js';
import { classified } from './failures.js';
import { whileHeartbeating } from './keep-alive.js';
import { runModelStep } from './model-step.js';
import { runStretch } from './run-stretch.js';
import type { StretchInput } from '../common/stretches.js';
import { compactConversation } from './compact-conversation.js';
import type { CompactConversationInput } from '../common/compaction-types.js';
import { evaluateAgentPolicies } from './tool-policies.js';
import { extractResumeData } from './extract-resume-data.js';
import { createMemoryActivities, type ThreadSettings } from './memory.js';
import { sendReminder } from './reminders.js';
import type { ToolApprovalPolicy } from '../definitions/agent.js';
import type { ChannelNoticeInput } from '../common/channel-types.js';
import { TollgateError } from '../common/errors.js';
import { channelManifest, type CheckedChannels } from '../channels/channel-options.js';
import { deliverNotice } from '../channels/deliver-notice.js';
import { callbackSigner } from '../channels/callback-link.js';
import { callStillWaits, findSlackPost } from './slack-posts.js';
import type { FindGrantsInput } from '../common/grant-types.js';
import { findGrants } from './find-grants.js';
import type { SharedSpendInput } from '../common/shared-budget.js';
import { commitSharedSpend, readSharedSpend } from './shared-spend.js';
import { liveRulesManifest } from './live-rules.js';
import type { ReplayCheckInput } from '../common/deployment-types.js';
import { checkReplay } from './replay-check.js';

export interface ActivityDeps {
  agents: AgentRegistry;
  bus: LiveDeltaTransport;
  client: Client;
  threads: ThreadSettings;
  /** Approval policies registered by name (`requireToolApproval: 'name'`). */
  policies: ReadonlyMap<string, ToolApprovalPolicy>;
  /** Webhooks that get waiting calls; none when absent. */
  channels?: CheckedChannels;
  /** The workflow code this worker runs, for the replay check before a run moves here. */
  workflowBundle?: () => Promise<WorkflowBundle>;
  /** The runtime's task queue, whose live approval rules new runs start with. */
  taskQueue?: string;
}

/** The activities of an agent worker, bound to the agents it hosts. */
export function createActivities(deps: ActivityDeps) {
  const conversations = new ConversationCache();
  const callbacks = callbackSigner(deps.channels);
  const readConversation = (runId: string, upTo: number) =>
    deps.client.workflow.getHandle(runId).query(conversationQuery, { upTo });
  return {
    ...createMemoryActivities(deps.client, deps.threads),
    /** Runs started before tools were named by key call it without `options`: by id. */
    describeAgent: (
      agentId: string,
      options?: { toolNaming?: ToolNaming },
    ): Promise<AgentManifest> =>
      classified(async () => ({
        ...describeAgent(deps.agents.require(agentId), options?.toolNaming),
        ...channelManifest(deps.channels, agentId),
        ...(await liveRulesManifest(deps.client, deps.taskQueue, agentId)),
      })),
    modelStep: (input: ModelStepInput) =>
      classified(() =>
        whileHeartbeating(() =>
          runModelStep(
            { agents: deps.agents, bus: deps.bus, conversations, readConversation },
            input,
          ),
        ),
      ),
    /** Local-mode runs only, as a local activity: it cannot heartbeat, its bounds keep it short. */
    runStretch: (input: StretchInput) =>
      classified(() =>
        runStretch(
          { agents: deps.agents, bus: deps.bus, conversations, readConversation, callbacks },
          input,
        ),
      ),
    compactConversation: (input: CompactConversationInput) =>
      classified(() =>
        whileHeartbeating(() =>
          compactConversation({ agents: deps.agents, conversations, readConversation }, input),
        ),
      ),
    executeTool: (input: ExecuteToolInput) =>
      classified(() => {
        refuseUnhosted(deps.agents, input);
        const checkpoints = new Checkpoints(Context.current(), input.priorAttempt);
        return whileHeartbeating(
          () => runTool(deps.agents, input, checkpoints, callbacks),
          () => checkpoints.details(),
        );
      }),
    evaluateToolPolicies: (input: EvaluateGatesInput) =>
      classified(() => evaluateAgentPolicies(deps.agents, deps.policies, input)),
    sendReminder: (input: ReminderInput) => classified(() => sendReminder(deps.agents, input)),
    sendChannelNotice: (input: ChannelNoticeInput) =>
      classified(() =>
        deliverNotice(requireChannels(deps.channels), input, {
          find: (notice) => findSlackPost(deps.client, notice),
          stillWaits: (notice) => callStillWaits(deps.client, notice),
        }),
      ),
    findGrants: (input: FindGrantsInput) =>
      classified(() => findGrants(deps.client, input, deps.agents)),
    readSharedSpend: (input: SharedSpendInput) =>
      classified(() => readSharedSpend(deps.client, input)),
    commitSharedSpend: (input: SharedSpendInput) =>
      classified(() => commitSharedSpend(deps.client, input)),
    extractResumeData: (input: ExtractResumeDataInput) =>
      classified(() => extractResumeData(deps.agents, input)),
    checkReplay: (input: ReplayCheckInput) =>
      classified(() => checkReplay(deps.client, deps.workflowBundle, input)),
  };
}

/** A run recorded channels when it started; a worker without them now cannot post. */
function requireChannels(channels: CheckedChannels | undefined): CheckedChannels {
  if (channels) return channels;
  throw new TollgateError(
    'INVALID_OPTIONS',
    'This worker has no channels configured, so the notice cannot be posted; start it with new Tollgate({ channels }).',
  );
}

export type TollgateActivities = ReturnType<typeof createActivities>;

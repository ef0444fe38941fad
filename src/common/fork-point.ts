import type { ForkPointCall } from './fork-types.js';
import type { JsonValue } from './json.js';
import type { RunInput } from './run-types.js';

/** What a fork takes over from its original's request (docs/fork.md "What a fork keeps"). */
export type ForkOrigin = Pick<
  RunInput,
  'agentId' | 'requestPolicy' | 'requestContext' | 'approvalRules' | 'activeTools' | 'resourceId'
>;

/** The `tollgate.forkPoint` query's answer: the original's state at the end of step `step`. */
export type ForkPointAnswer =
  | {
      step: number;
      /** The conversation through the step's model output; all of it when `calls` is empty. */
      messages: JsonValue[];
      /** The step's tool calls, whose results follow `messages`; empty when none are open to choose. */
      calls: ForkPointCall[];
      /** Steps the original has taken so far. */
      steps: number;
      origin: ForkOrigin;
    }
  | {
      /** The step cannot be forked: the steps that can, first and last. */
      unavailable: { earliest: number; latest: number };
    };

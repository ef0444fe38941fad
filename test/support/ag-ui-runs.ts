import { expect } from '@jest/globals';
import type { BaseEvent, HttpAgent, ResumeEntry } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';

/**
 * One AG-UI run of `agent`: its events, each checked against @ag-ui/core's published schema.
 * The client's own verifier (`verifyEvents`, part of `runAgent`'s pipeline) rejects the run if
 * the sequence breaks the protocol. `onEvent` sees each event as it arrives.
 */
export async function runChecked(
  agent: HttpAgent,
  parameters: { resume?: ResumeEntry[]; runId?: string } = {},
  onEvent?: (event: BaseEvent) => void,
): Promise<BaseEvent[]> {
  const events: BaseEvent[] = [];
  // The client logs and swallows what a subscriber throws: problems are collected instead.
  const invalid: string[] = [];
  await agent.runAgent(parameters, {
    onEvent: ({ event }) => {
      const parsed = EventSchema.safeParse(event);
      if (!parsed.success) invalid.push(`${event.type}: ${parsed.error.message}`);
      events.push(event);
      onEvent?.(event);
    },
  });
  expect(invalid).toEqual([]);
  expect(events.length).toBeGreaterThan(0);
  return events;
}

export const typesOf = (events: BaseEvent[]) => events.map((e) => e.type);

export const finished = (events: BaseEvent[]) =>
  events.find((e) => e.type === 'RUN_FINISHED') as
    { outcome?: { type: string; interrupts?: Array<{ id: string; reason: string }> } } | undefined;

import type { Chunk } from '../../common/chunks.js';
import type { AgentStream } from '../../stream/agent-stream.js';
import type { AgentClient } from '../../temporal-client/agent-client.js';

/**
 * What one request's decisions in one run lead to, as one stretch: the run's chunks from the
 * first decision on, up to the first `finish` logged after the last decision was applied. A
 * `finish` logged before that (the run stopped to wait between two of the answers, say after the
 * approved call ran and before the decline arrived) is passed over, however many there are, so
 * the response ends where the run waits or finishes with all of the request's answers applied.
 */
export async function* continuationOf(
  agent: AgentClient,
  decisions: AgentStream[],
): AsyncIterable<Chunk> {
  let stream = decisions.reduce((a, b) => (b.startOffset < a.startOffset ? b : a));
  const lastApplied = Math.max(...decisions.map((d) => d.startOffset));
  for (;;) {
    yield* stream.fullStream;
    if ((await stream.finishReason) !== 'suspended') return;
    const next = await stream.nextOffset;
    // The finish just read sits at `next - 1`: at or past the last decision, it is the one.
    if (next > lastApplied) return;
    stream = await agent.observe({ runId: stream.runId, offset: next });
  }
}

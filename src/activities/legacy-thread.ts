import type { ThreadRef } from '../common/run-types.js';

/**
 * Before thread ids were encoded, a thread's id was its three parts joined by `/`. For parts
 * without `/` that id has exactly four segments, so it can only be this thread's: returned here
 * when it differs from today's id (a part holds `%`), to be read and carried over. With a `/` in
 * a part, other threads may have written under the same old id: it is never read.
 */
export function legacyThreadId(ref: ThreadRef): { id: string; ambiguous: boolean } | undefined {
  const parts = [ref.agentId, ref.resourceId, ref.threadId];
  const ambiguous = parts.some((part) => part.includes('/'));
  if (!ambiguous && !parts.some((part) => part.includes('%'))) return undefined;
  return { id: ['tollgate-thread', ...parts].join('/'), ambiguous };
}

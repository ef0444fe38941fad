import { setHandler, upsertMemo } from '@temporalio/workflow';
import type { DirectoryEntryState, Publication } from '../common/directory-types.js';
import {
  directoryPublishUpdate as publishUpdate,
  directoryWithdrawUpdate as withdrawUpdate,
} from '../common/messages.js';
import { DIRECTORY_MEMO_KEY } from '../common/wire.js';
import { keepOpen } from './registry-lifetime.js';

/** Workers an entry remembers: a crashed worker never withdraws, so the oldest are dropped. */
const REMEMBERED_WORKERS = 50;

/**
 * The directory entry of one agent on one task queue: open for as long as the agent is listed.
 * Its state lives in its memo too, so `describe()` and visibility read it with no worker running.
 */
export async function agentDirectoryEntry(initial: DirectoryEntryState): Promise<void> {
  let state = initial;
  const keep = (next: DirectoryEntryState) => {
    state = next;
    upsertMemo({ [DIRECTORY_MEMO_KEY]: state });
  };
  setHandler(publishUpdate, (publication) => keep(published(state, publication)));
  setHandler(withdrawUpdate, (worker) => {
    const workers = Object.entries(state.workers).filter(([identity]) => identity !== worker);
    keep({ ...state, workers: Object.fromEntries(workers) });
  });
  await keepOpen(DIRECTORY_MEMO_KEY, () => state);
}

/** The state after `publication`: its description, its worker added, the oldest workers dropped. */
export function published(
  state: DirectoryEntryState,
  publication: Publication,
): DirectoryEntryState {
  const workers = Object.entries({ ...state.workers, [publication.worker]: publication.at })
    .sort(([, a], [, b]) => a.localeCompare(b))
    .slice(-REMEMBERED_WORKERS);
  return {
    agent: publication.agent,
    publishedAt: publication.at,
    workers: Object.fromEntries(workers),
  };
}

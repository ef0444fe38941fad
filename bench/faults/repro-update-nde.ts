/**
 * Plays `update-race.ts` (a worker restart that leaves an activity's result and an approval update
 * to arrive in one workflow task) `ATTEMPTS` times on its own dev server and reports each attempt.
 * Before updates were ordered after events (`src/workflows/update-order.ts`), about one attempt in
 * three left a history that did not replay, and a run that then got stuck.
 *
 *   npm run build && node dist/bench/faults/repro-update-nde.js [attempts]   # exit 1: reproduced
 *
 * With REPRO_SAVE_HISTORY=<file>, the first history that does not replay is written there.
 */
import '../quiet-runtime.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findTemporalCli, startDevServer } from '../../src/index.js';
import { playUpdateRace } from './update-race.js';

const ATTEMPTS = Number(process.argv[2] ?? 6);

const dir = await mkdtemp(join(tmpdir(), 'tollgate-repro-'));
const server = await startDevServer({ cliPath: await findTemporalCli(), dbFile: join(dir, 'db') });
let reproduced = 0;
try {
  for (let i = 1; i <= ATTEMPTS; i++) {
    const outcome = await playUpdateRace({
      address: server.address,
      namespace: server.namespace,
      taskQueue: `repro-${i}`,
    });
    const { history, ...shown } = outcome;
    console.log(`attempt ${i}: ${JSON.stringify(shown)}`);
    if (outcome.replay !== 'replays' || !outcome.ending.startsWith('completed')) {
      reproduced++;
      if (history && process.env.REPRO_SAVE_HISTORY && reproduced === 1)
        await writeFile(process.env.REPRO_SAVE_HISTORY, history);
    }
  }
  console.log(
    `${reproduced} of ${ATTEMPTS} attempts left a history that does not replay or a stuck run`,
  );
} finally {
  await server.stop();
  await rm(dir, { recursive: true, force: true });
}
process.exit(reproduced > 0 ? 1 : 0);

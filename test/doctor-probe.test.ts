/**
 * `tollgate doctor --probe` against real dev servers: one with Temporal's default dynamic config
 * (the transfer queue polled 20 times a second, no eager activities), one with the tuned config
 * every Tollgate dev server now starts with. The assertions are on the verdicts, whose margin
 * (~75 ms of waits a round against ~7 ms once the rate limiter's burst is spent) is wide on a
 * machine that is not busy (`busy`: its load average or its rounds' own work); the probe's
 * timings themselves are not asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, TUNED_DYNAMIC_CONFIG, type DevServer } from '../src/devserver/index.js';
import { cli } from './support/cli.js';

interface ProbeDocument {
  probe: {
    workflowId: string;
    rounds: number;
    warmupRounds: number;
    wakeMs: number[];
    transfer: 'ok' | 'throttled';
    eager: boolean;
    busy: boolean;
    advice: string[];
  };
}

/** Each test runs the CLI twice; each run bundles the probe workflow and runs 25 activities. */
const TWO_PROBES_MS = 300_000;

async function server(tuned: boolean): Promise<DevServer> {
  const dir = await mkdtemp(join(tmpdir(), `tollgate-probe-${tuned ? 'tuned' : 'defaults'}-`));
  return startDevServer({ cliPath: process.env.TEMPORAL_CLI, dbFile: join(dir, 'db'), tuned });
}

function doctor(target: DevServer, json: boolean) {
  return cli(['doctor', '--probe', ...(json ? ['--json'] : [])], {
    TEMPORAL_ADDRESS: target.address,
    TEMPORAL_NAMESPACE: target.namespace,
  });
}

/** Activities the probe workflow completed, read from its history. */
async function completedActivities(target: DevServer, workflowId: string): Promise<number> {
  const connection = await Connection.connect({ address: target.address });
  try {
    const client = new Client({ connection, namespace: target.namespace });
    const history = await client.workflow.getHandle(workflowId).fetchHistory();
    return (history.events ?? []).filter((e) => e.activityTaskCompletedEventAttributes).length;
  } finally {
    await connection.close();
  }
}

describe('tollgate doctor --probe', () => {
  let defaults: DevServer;
  let tuned: DevServer;

  beforeAll(async () => {
    defaults = await server(false);
    tuned = await server(true);
  }, 120_000);
  afterAll(async () => {
    await defaults?.stop();
    await tuned?.stop();
  });

  it('starts dev servers with the tuned dynamic config unless told not to', () => {
    expect(tuned.dynamicConfig).toEqual({
      'system.enableActivityEagerExecution': true,
      'history.transferProcessorMaxPollRPS': 2000,
    });
    expect(TUNED_DYNAMIC_CONFIG).toEqual(tuned.dynamicConfig);
    expect(defaults.dynamicConfig).toEqual({});
  });

  it(
    "finds the transfer queue throttled and no eager activities on Temporal's defaults",
    async () => {
      const result = await doctor(defaults, true);
      // No worker polls the `tollgate` task queue of this server: the usual exit 7.
      expect(result.code).toBe(7);
      const { probe } = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as ProbeDocument;
      // Eager dispatch is off at any load: every activity waits for matching.
      expect(probe.eager).toBe(false);
      expect(probe.advice.join('\n')).toContain('system.enableActivityEagerExecution');
      // The probe ran what it timed: the warm-up rounds, then `rounds` activities, each measured.
      expect(probe.wakeMs).toHaveLength(probe.rounds);
      expect(await completedActivities(defaults, probe.workflowId)).toBe(
        probe.warmupRounds + probe.rounds,
      );
      // The transfer queue's throttle (a read per 50 ms) only adds a wait when a round's own work
      // takes less than that; a busy machine makes every round slower and hides it, and the probe
      // says so (`busy`). A quiet machine's verdict is asserted.
      if (!probe.busy) {
        expect(probe.transfer).toBe('throttled');
        expect(probe.advice.join('\n')).toContain('transferProcessorMaxPollRPS looks throttled');
      }

      const human = await doctor(defaults, false);
      expect(human.stdout).toContain('Eager activity dispatch: off.');
      if (!human.stdout.includes('Note: this machine is busy')) {
        expect(human.stdout).toContain('transferProcessorMaxPollRPS looks throttled');
        expect(human.stdout).toContain('history.transferProcessorMaxPollRPS to 2000');
      }
    },
    TWO_PROBES_MS,
  );

  it(
    'says the tuned dev server needs no change',
    async () => {
      const result = await doctor(tuned, true);
      const { probe } = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as ProbeDocument;
      // Eager dispatch shows at any load: the activity starts in the call that scheduled it.
      expect(probe.eager).toBe(true);
      expect(await completedActivities(tuned, probe.workflowId)).toBe(
        probe.warmupRounds + probe.rounds,
      );
      // A machine whose load average exceeds its CPUs stretches every wait past the throttled
      // mark; the probe says so (`busy`), and only a quiet machine's verdict is asserted.
      if (!probe.busy) {
        expect(probe).toMatchObject({ transfer: 'ok', advice: [] });
        const human = await doctor(tuned, false);
        expect(human.stdout).toContain('Server settings: OK for Tollgate.');
      }
    },
    TWO_PROBES_MS,
  );
});

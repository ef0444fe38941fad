import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { Client, Connection } from '@temporalio/client';
import { TollgateError } from '../src/common/errors.js';
import { SEARCH_ATTRIBUTES } from '../src/common/wire.js';
import { findTemporalCli, startDevServer } from '../src/devserver/index.js';

const tempDir = () => mkdtemp(join(tmpdir(), 'tollgate-devserver-test-'));

describe('findTemporalCli', () => {
  it('rejects a TEMPORAL_CLI that does not exist, naming the path', async () => {
    const missing = join(await tempDir(), 'no-such-temporal');
    const error = await findTemporalCli({ env: { ...process.env, TEMPORAL_CLI: missing } }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'TEMPORAL_CLI_UNAVAILABLE' });
    expect((error as Error).message).toContain(missing);
  });

  it.each([true, false])(
    'explains how to get a CLI when there is neither CLI nor Go (install: %s)',
    async (install) => {
      // An empty PATH and HOME hide both the CLI and Go, including Go's default ~/go/bin.
      const empty = await tempDir();
      const error = await findTemporalCli({
        install,
        log: () => {},
        env: { PATH: empty, HOME: empty },
      }).catch((e) => e);
      expect(error).toBeInstanceOf(TollgateError);
      expect(error).toMatchObject({ code: 'TEMPORAL_CLI_UNAVAILABLE' });
      expect((error as Error).message).toContain(
        'go install github.com/temporalio/cli/cmd/temporal@v1.5.1',
      );
      expect((error as Error).message).toContain('TEMPORAL_CLI');
    },
  );

  it('finds the CLI the global setup uses', async () => {
    await expect(findTemporalCli({ install: false })).resolves.toBe(process.env.TEMPORAL_CLI);
  });
});

describe('startDevServer', () => {
  it('reports a server that exits at once, with its output', async () => {
    const dbFile = join(await tempDir(), 'dev-server.db');
    const error = await startDevServer({ dbFile, logLevel: 'not-a-level' }).catch((e) => e);
    expect(error).toBeInstanceOf(TollgateError);
    expect(error).toMatchObject({ code: 'TEMPORAL_SERVER_START_FAILED' });
    expect((error as Error).message).toContain('not-a-level');
  });

  it('starts again when the CLI panics, and reports the panic a long dump pushed out of the tail', async () => {
    // A stand-in CLI that panics as the real one does when a port it chose itself was taken: the
    // panic's line, then a goroutine dump longer than the output tail.
    const dir = await tempDir();
    const cliPath = join(dir, 'temporal');
    const starts = join(dir, 'starts');
    const dump = Array.from({ length: 40 }, (_, i) => `echo "goroutine frame ${i}"`).join('\n');
    await writeFile(
      cliPath,
      `#!/bin/sh\necho start >> "${starts}"\necho "panic: listen tcp 127.0.0.1:1: bind: something"\n${dump}\nexit 2\n`,
    );
    await chmod(cliPath, 0o755);
    const error = await startDevServer({ cliPath, dbFile: join(dir, 'dev.db') }).catch((e) => e);
    expect(error).toMatchObject({ code: 'TEMPORAL_SERVER_START_FAILED' });
    expect((error as Error).message).toContain('panic: listen tcp 127.0.0.1:1: bind: something');
    expect((error as Error).message).toContain('goroutine frame 39');
    // Three starts, each on newly chosen ports, before it gives up.
    expect((await readFile(starts, 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('registers the search attributes and keeps workflows across a restart on the same file', async () => {
    const dbFile = join(await tempDir(), 'dev-server.db');
    const workflowId = 'survivor-1';

    const first = await startDevServer({ dbFile });
    try {
      await withClient(first.address, async (client, connection) => {
        const { customAttributes } = await connection.operatorService.listSearchAttributes({
          namespace: first.namespace,
        });
        for (const { name } of Object.values(SEARCH_ATTRIBUTES))
          expect(customAttributes).toHaveProperty(name);
        // No worker polls this queue, so the workflow simply stays RUNNING.
        await client.workflow.start('nonexistent-type', { taskQueue: 'nobody', workflowId });
      });
    } finally {
      await first.stop();
      await first.stop(); // idempotent
    }

    const second = await startDevServer({ dbFile });
    try {
      expect(second.dbFile).toBe(first.dbFile);
      await withClient(second.address, async (client) => {
        const description = await client.workflow.getHandle(workflowId).describe();
        expect(description.status.name).toBe('RUNNING');
      });
    } finally {
      await second.stop();
    }
  });
});

async function withClient(
  address: string,
  use: (client: Client, connection: Connection) => Promise<void>,
): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    await use(new Client({ connection }), connection);
  } finally {
    await connection.close();
  }
}

/**
 * A Redis for tests and benches of live deltas: `TOLLGATE_TEST_REDIS_URL` if set, else the one
 * answering on 127.0.0.1:6379, else a `redis-server` of our own on a free port (no persistence),
 * stopped by `stop()`. Without any, it fails loudly with how to install one: live deltas are
 * tested against a real broker, never skipped.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join } from 'node:path';
import { freePorts } from '../../src/devserver/free-ports.js';

export interface TestRedis {
  url: string;
  /** True when this process started the server (and `stop()` ends it). */
  started: boolean;
  stop(): Promise<void>;
}

const DEFAULT_PORT = 6379;

export async function findOrStartRedis(): Promise<TestRedis> {
  const given = process.env.TOLLGATE_TEST_REDIS_URL;
  if (given) return { url: given, started: false, stop: () => Promise.resolve() };
  if (await answersPing(DEFAULT_PORT)) {
    return {
      url: `redis://127.0.0.1:${DEFAULT_PORT}`,
      started: false,
      stop: () => Promise.resolve(),
    };
  }
  const binary = findBinary('redis-server');
  if (!binary) {
    throw new Error(
      'Live-delta tests need Redis: nothing answers on 127.0.0.1:6379 and no redis-server is on the PATH. Install it (apt-get install -y redis-server) or set TOLLGATE_TEST_REDIS_URL.',
    );
  }
  const [port] = await freePorts(1);
  const child = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on('data', (data: Buffer) => (output = (output + data).slice(-4000)));
  }
  const stop = () => stopChild(child);
  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port!))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`redis-server on port ${port} did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, started: true, stop };
}

/** True when a Redis on the loopback `port` answers PING within a second. */
export function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (data: Buffer) => {
      reply += String(data);
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

function findBinary(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    if (!dir) continue;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return join(dir, name);
    } catch {
      // Not here.
    }
  }
  return undefined;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

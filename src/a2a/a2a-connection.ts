import { TaskState, type Message, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { setTimeout as sleep } from 'node:timers/promises';
import { TollgateError } from '../common/errors.js';

/** Headers of every request to a remote agent, or a function giving them for each request. */
export type A2AHeaders =
  Record<string, string> | (() => Record<string, string> | Promise<Record<string, string>>);

const SETTLED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_INPUT_REQUIRED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_REJECTED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_AUTH_REQUIRED,
]);

/**
 * The A2A SDK's client for one remote agent, made on first use (reading the agent's card) and
 * made again after a failure, so a card that could not be read is read again on the next call.
 */
export class A2AConnection {
  private client: Promise<Client> | undefined;

  constructor(
    private readonly options: { url: string; headers?: A2AHeaders; fetch?: typeof fetch },
  ) {
    if (typeof options.url !== 'string' || !/^https?:\/\/[^/]/.test(options.url)) {
      throw new TollgateError(
        'INVALID_TOOL',
        `a2aTool url must be the agent's http(s) base URL, not ${JSON.stringify(options.url)}.`,
      );
    }
  }

  /** Sends a message and waits as the protocol does: until the task settles or is interrupted. */
  async send(message: Message): Promise<Task | Message> {
    const client = await this.connect();
    const configuration = {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: false,
    };
    return client.sendMessage({ tenant: '', message, configuration, metadata: undefined });
  }

  async task(taskId: string): Promise<Task> {
    return (await this.connect()).getTask({ tenant: '', id: taskId, historyLength: 0 });
  }

  /** Reads the task again every `intervalMs` until it completes, fails or asks for something. */
  async settle(task: Task, intervalMs: number, signal: AbortSignal): Promise<Task> {
    let current = task;
    while (!SETTLED.has(current.status?.state ?? TaskState.TASK_STATE_UNSPECIFIED)) {
      await sleep(intervalMs, undefined, { signal });
      current = await this.task(current.id);
    }
    return current;
  }

  private connect(): Promise<Client> {
    this.client ??= this.open().catch((error: unknown) => {
      this.client = undefined;
      throw error;
    });
    return this.client;
  }

  private async open(): Promise<Client> {
    const fetchImpl = this.fetchWithHeaders();
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [
          new JsonRpcTransportFactory({ fetchImpl }),
          new RestTransportFactory({ fetchImpl }),
        ],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      }),
    );
    // The SDK resolves the card path against the URL: without a trailing slash the agent's own
    // path segment would be dropped.
    const { url } = this.options;
    return factory.createFromUrl(url.endsWith('/') ? url : `${url}/`);
  }

  private fetchWithHeaders(): typeof fetch {
    const base = this.options.fetch ?? fetch;
    const given = this.options.headers;
    if (!given) return base;
    return async (input, init) => {
      const extra = typeof given === 'function' ? await given() : given;
      const headers = new Headers(init?.headers);
      for (const [name, value] of Object.entries(extra)) headers.set(name, value);
      return base(input, { ...init, headers });
    };
  }
}

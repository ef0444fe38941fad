import { AsyncLocalStorage } from 'node:async_hooks';
import { InterceptingCall, Metadata, status as grpcStatus, type Interceptor } from '@grpc/grpc-js';
import {
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  ServiceError,
} from '@temporalio/client';

type Call = ConstructorParameters<typeof InterceptingCall>[0];

const outageBudget = new AsyncLocalStorage<number>();

/**
 * Runs `work` with Temporal calls that stop retrying an unreachable server (UNAVAILABLE) after
 * `ms` each and fail, instead of the SDK's ≈ 20 s of retries: for callers that must answer soon,
 * such as the HTTP server. UNAVAILABLE means the request did not reach Temporal, so nothing was
 * changed. Other retried codes keep the SDK's retries.
 */
export function withOutageBudget<T>(ms: number, work: () => Promise<T>): Promise<T> {
  return outageBudget.run(ms, work);
}

/** A client connection that can be closed while calls are still being retried. */
export interface ClosableConnection {
  connection: Connection;
  /** Ends retries in flight (their callers get CANCELLED) and closes the channel. */
  close(): Promise<void>;
}

/**
 * Connects a Temporal client whose retries stop when it closes. With the SDK's default retry
 * interceptor, a call waiting out its backoff when the channel closes retries on the closed
 * channel from a timer, and the process dies of an uncaught "Channel has been shut down".
 */
export async function connectClosable(address: string): Promise<ClosableConnection> {
  let closing = false;
  const defaults = defaultGrpcRetryOptions();
  // Made per call: a call started under `withOutageBudget` stops retrying once its budget is spent.
  const retry: Interceptor = (options, nextCall) => {
    const budget = outageBudget.getStore();
    const started = Date.now();
    const left = () => (budget === undefined ? Infinity : budget - (Date.now() - started));
    return makeGrpcRetryInterceptor({
      delayFunction: (attempt, status) =>
        Math.max(0, Math.min(defaults.delayFunction(attempt, status), left())),
      retryableDecider: (attempt, status) =>
        !closing &&
        defaults.retryableDecider(attempt, status) &&
        !(status.code === grpcStatus.UNAVAILABLE && left() <= 0),
    })(options, nextCall);
  };
  // Beneath the retries: a call started on the closed channel ends as CANCELLED instead.
  const closedChannelGuard: Interceptor = (options, nextCall) => {
    let call: Call;
    try {
      call = nextCall(options);
    } catch (error) {
      if (!closing) throw error;
      call = cancelledCall();
    }
    return new InterceptingCall(call);
  };
  const connection = Connection.lazy({ address, interceptors: [retry, closedChannelGuard] });
  try {
    await connection.ensureConnected();
  } catch (error) {
    // What the server answered comes wrapped in a ServiceError; anything else is the channel
    // never becoming ready before the connect deadline: Temporal was not reached at all.
    if (error instanceof ServiceError) throw error;
    throw new ConnectDeadlineError(error);
  }
  return {
    connection,
    close: async () => {
      closing = true;
      await connection.close();
    },
  };
}

/** The client could not reach Temporal before its connect deadline; nothing was sent. */
export class ConnectDeadlineError extends Error {
  override readonly name = 'ConnectDeadlineError';

  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause), { cause });
  }
}

/**
 * A call that ends as soon as it starts, with status CANCELLED. An empty message comes first:
 * Temporal's retry interceptor hands on the last message it saw with a status it does not retry,
 * and throws (in a microtask, so the process's, not the caller's) when it saw none.
 */
function cancelledCall(): Call {
  return {
    start(_metadata, listener) {
      queueMicrotask(() => {
        listener?.onReceiveMessage?.(undefined);
        listener?.onReceiveStatus?.({
          code: grpcStatus.CANCELLED,
          details: 'The Temporal connection was closed.',
          metadata: new Metadata(),
        });
      });
    },
    cancelWithStatus() {},
    getPeer: () => '',
    sendMessageWithContext() {},
    sendMessage() {},
    startRead() {},
    halfClose() {},
    getAuthContext: () => null,
  };
}

import { TollgateHttpError } from './http-error.js';

/** The `fetch` the SDK calls; the global one by default. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Per-call options of every SDK method. */
export interface RequestOptions {
  /** Aborts the request, and for streams the reading of the response. */
  signal?: AbortSignal;
}

export type QueryValue = string | number | Date | undefined;

export interface RequestSpec extends RequestOptions {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: unknown;
  query?: Record<string, QueryValue>;
  accept?: string;
}

/** Sends authenticated requests to one Tollgate server and turns error answers into errors. */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetch: FetchLike;

  constructor(
    baseUrl: string,
    private readonly token: string,
    fetchImpl?: FetchLike,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    // Called as a plain function: browsers refuse `fetch` invoked as a method of another object.
    const global = globalThis.fetch;
    this.fetch = fetchImpl ?? ((input, init) => global(input, init));
  }

  /** Sends the request; resolves with the response when it is a success (2xx). */
  async send(spec: RequestSpec): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      accept: spec.accept ?? 'application/json',
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetch(this.baseUrl + spec.path + queryString(spec.query), {
      method: spec.method,
      headers,
      ...(spec.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
      ...(spec.signal ? { signal: spec.signal } : {}),
    });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  /** Sends the request and parses the JSON answer. */
  async json<T>(spec: RequestSpec): Promise<T> {
    const response = await this.send(spec);
    return (await response.json()) as T;
  }
}

function queryString(query: Record<string, QueryValue> | undefined): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    params.set(key, value instanceof Date ? value.toISOString() : String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

async function errorOf(response: Response): Promise<TollgateHttpError> {
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  const fallback = `HTTP ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`;
  return TollgateHttpError.from(response.status, body, fallback);
}

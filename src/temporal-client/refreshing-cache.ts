/**
 * Answers of one kind of call to Temporal, by key, reused for `ttlMs`. Past half of it an answer
 * is still given, and asked again in the background `renewAfterMs` later, so a steady stream of
 * callers never waits for it (stale-while-revalidate) and the call does not compete with the one
 * the caller makes next. Callers asking at the same time share one call.
 */
export class RefreshingCache<Value> {
  private readonly answers = new Map<string, { at: number; value: Value }>();
  private readonly asking = new Map<string, { since: number; answer: Promise<Value> }>();
  private readonly renewing = new Set<string>();

  constructor(
    /** How long an answer is given, ms. */
    private readonly ttlMs: number,
    /** How long after a caller was given an aging answer it is asked again, ms. */
    private readonly renewAfterMs = 0,
  ) {}

  /**
   * The answer for `key`, asked with `ask` when none is at hand. With `notBefore` (a `Date.now()`
   * time), only an answer asked at or after it is given: a caller about to refuse on a cached
   * answer asks again first.
   */
  async get(key: string, ask: () => Promise<Value>, notBefore = -Infinity): Promise<Value> {
    const cached = this.answers.get(key);
    const age = cached ? Date.now() - cached.at : Infinity;
    if (cached && age < this.ttlMs && cached.at >= notBefore) {
      if (age >= this.ttlMs / 2) this.renew(key, ask);
      return cached.value;
    }
    return this.refresh(key, ask, notBefore);
  }

  /** Asks for `key` again in the background, once however many callers saw it aging. */
  private renew(key: string, ask: () => Promise<Value>): void {
    if (this.renewing.has(key)) return;
    this.renewing.add(key);
    const renew = () =>
      this.refresh(key, ask)
        .catch(() => undefined)
        .finally(() => this.renewing.delete(key));
    // A timer that is the last thing left must not keep the process alive.
    setTimeout(() => void renew(), this.renewAfterMs).unref();
  }

  /** Asks for `key`, joining a call under way unless it was sent before `notBefore`. */
  private refresh(key: string, ask: () => Promise<Value>, notBefore = -Infinity): Promise<Value> {
    const under = this.asking.get(key);
    if (under && under.since >= notBefore) return under.answer;
    const since = Date.now();
    const answer = ask().then((value) => {
      // An older call answering last must not replace a newer answer.
      if ((this.answers.get(key)?.at ?? -Infinity) <= since) {
        this.answers.set(key, { at: since, value });
      }
      return value;
    });
    const entry = { since, answer };
    this.asking.set(key, entry);
    const done = () => {
      if (this.asking.get(key) === entry) this.asking.delete(key);
    };
    answer.then(done, done);
    return answer;
  }
}

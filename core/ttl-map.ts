// A process's short-lived memory of something the database holds: entries expire after a fixed
// time, the whole map is dropped when it grows past its bound, and callers drop entries when
// told the database changed (see store/listen.ts).
export class TtlMap<V> {
  private entries = new Map<string, { value: V; until: number }>();

  constructor(
    private ttlMs: number,
    private max: number,
  ) {}

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until > Date.now()) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V) {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { value, until: Date.now() + this.ttlMs });
  }

  /** Forget the entries whose value `test` picks. */
  dropWhere(test: (value: V) => boolean) {
    for (const [key, e] of this.entries) if (test(e.value)) this.entries.delete(key);
  }

  clear() {
    this.entries.clear();
  }
}

/** Per-user cache of a derived value; invalidated by change events and own writes. */
export class UserCache<T> {
  private readonly versions = new Map<string, number>();
  private readonly values = new Map<string, { version: number; value: Promise<T> }>();
  private readonly resolved = new Map<string, { version: number; value: T }>();

  /** The current value when it is already computed (for in-place updates), else undefined. */
  peek(userId: string): T | undefined {
    const entry = this.resolved.get(userId);
    return entry && entry.version === (this.versions.get(userId) ?? 0) ? entry.value : undefined;
  }

  invalidate(userId: string): void {
    this.versions.set(userId, (this.versions.get(userId) ?? 0) + 1);
    this.values.delete(userId);
  }

  clear(): void {
    for (const userId of [...this.values.keys()]) this.invalidate(userId);
  }

  get(userId: string, load: () => Promise<T>): Promise<T> {
    const version = this.versions.get(userId) ?? 0;
    const cached = this.values.get(userId);
    if (cached && cached.version === version) return cached.value;
    const value = load();
    this.values.set(userId, { version, value });
    value.then(
      (result) => {
        if ((this.versions.get(userId) ?? 0) === version) this.resolved.set(userId, { version, value: result });
      },
      () => undefined,
    );
    value.catch(() => {
      if (this.values.get(userId)?.value === value) this.values.delete(userId);
    });
    return value;
  }
}

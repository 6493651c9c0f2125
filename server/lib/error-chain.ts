/** The parts of an error worth looking at when classifying it. */
export interface ErrorLink {
  code?: unknown;
  message?: unknown;
}

/**
 * An error and the errors it wraps, breadth first, at most 10: `cause` (Node, ours) and
 * `parameters.error` (RxDB). For classifiers that look for a storage code or message anywhere in it.
 */
export function errorChain(error: unknown): ErrorLink[] {
  const seen = new Set<unknown>();
  const out: ErrorLink[] = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && seen.size < 10) {
    const e = queue.shift() as { code?: unknown; message?: unknown; cause?: unknown; parameters?: { error?: unknown } } | null;
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    out.push(e);
    queue.push(e.cause, e.parameters?.error);
  }
  return out;
}

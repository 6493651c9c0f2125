/**
 * `promise`, or a failure with `message` when it has not settled after `ms`: a deadline, not a
 * wait (it ends as soon as the promise does, and its timer is cleared).
 */
export async function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * `list[index]` for an index the caller has computed inside the list (the middle of a binary
 * search, a position below a length it has just read, a column of the same length). A missing
 * element there is a bug of ours: it is reported as an internal error at once instead of being
 * read on as `undefined`. Not for lists that may hold `undefined` or holes, nor for an index that
 * comes from input (check that one and refuse it).
 */
export function itemAt<T>(list: ArrayLike<T>, index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`internal error: no item at index ${index} of a list of ${list.length}`);
  return item;
}

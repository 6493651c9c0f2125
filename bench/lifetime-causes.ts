/**
 * Why a figure of `bench:lifetime` misses its goal, as measured for issue 23 (docs/ledger.md,
 * "Memory"); bench/run.ts adds the machine's load to it. `f` is the figure, lower-cased.
 */
export function lifetimeCause(f: string): string {
  if (f.includes('empty data dir'))
    return 'No records: the Node binary itself stays ~49 MB resident (measured in /proc/<pid>/smaps), V8 keeps a 32 MB young generation once it has grown while starting, then the 3.5 MB bundle, RxDB with its 12 collections and validators. Launching Node with `--max-semi-space-size=4` and `MALLOC_ARENA_MAX=2` saves 28 + 14 MB at 100,000 records (measured) but little here; we do not set them, since `npm start` runs the server inside the launcher process (docs/ledger.md, "Memory").';
  if (f.includes('rss') && f.includes('1,000,000'))
    return 'The per-user view keeps one JavaScript object per record (≈ 240 B with its id and boxed dates): ≈ 275 MB of heap for 1,000,000 records, plus the young generation and the buffers of the saved view read at start. A columnar view (typed arrays, ≈ 70 B per record) is the change that would meet it; see docs/ledger.md, "Memory".';
  if (f.includes('rss'))
    return "Node (~49 MB of its binary resident), the young generation V8 grew to (32 MB), the heap of the server (~35 MB) and the per-user view (~25 MB: one object per record), LevelDB's caches and malloc arenas. Actual keeps its records in SQLite pages, not in the JavaScript heap; our view is what makes warm queries 10–25× faster than Actual's.";
  if (f.includes('1,000,000'))
    return 'Restoring the saved view of 1,000,000 records creates a million entry objects (≈ 0.5 s plus garbage collection) on top of the ready line; a columnar view would read typed arrays instead (docs/ledger.md, "Memory").';
  if (f.includes('cold') || f.includes('first'))
    return 'The ready line alone takes ~450–600 ms here (Node, the bundle, RxDB opening its collections, the domains starting); after it the saved view of 100,000 records is restored in ~0.1 s (it was ~0.6–1 s of parsing every record before this issue) and the first answer follows. Actual answers about 0.1 s sooner in the same run: its start has no ready line to reach, only its bundle and SQLite to open.';
  return 'Measured over HTTP (POST /api) from the benchmark process: the time includes auth, validation and JSON of the answer; see the lifetime table.';
}

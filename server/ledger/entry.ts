import type { RecordType } from './schema';

/** The part of a record that balances, statistics and list filters need. */
export interface Entry {
  id: string;
  type: RecordType;
  amount: number;
  asset: string;
  toAsset: string;
  toAmount: number;
  fee: number;
  category: string;
  date: number;
  tags: string[];
  searchText: string;
  /**
   * Index into the view's `texts`: the lower-cased description, category and tags of the record,
   * interned, so a search tests each distinct text once, not each record (record-search.ts).
   */
  textId: number;
  /** When the record was written (bookkeeping streaks count these days). */
  createdAt: number;
}

/** A position in RxDB's change order of a collection: the write time (lwt) and id of a document. */
export interface Checkpoint {
  lwt: number;
  id: string;
}

/** (lwt, id) order of RxDB's change checkpoints. */
export function checkpointAfter(a: Checkpoint, b: Checkpoint | null): boolean {
  return b === null || a.lwt > b.lwt || (a.lwt === b.lwt && a.id > b.id);
}

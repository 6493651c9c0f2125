/** Types of ledger-phone.mjs (a PennyPost phone over CouchDB; see docs/sync.md, "A phone client"). */

export interface ConnectOptions {
  /** The CouchDB server's base URL, e.g. https://couch.example.com/ */
  url: string;
  username: string;
  password: string;
  /** The ledger's database prefix (default `pennypost_<username>_`). */
  prefix?: string;
  /** The ledger owner id (default: read from `<prefix>meta/ledger-owner`). */
  ownerId?: string;
  /** The PouchDB constructor (default: the `pouchdb` package, or pouchdb-core + http + replication + memory). */
  PouchDB?: unknown;
  /** The local store's adapter ('idb', 'leveldb', 'memory', …). */
  adapter?: string;
  /** Name prefix of the local databases (default `phone-<prefix>`). */
  localName?: string;
  /** Start replicating at once (default true). */
  online?: boolean;
}

/** An asset as stored in `<prefix>assets` (docs/sync.md, "Document shapes"). */
export interface PhoneAsset {
  _id: string;
  _rev: string;
  userId: string;
  name: string;
  type: string;
  currency: string;
  /** Integer minor units. */
  openingBalance: number;
  description: string;
  icon: string;
  status: 'normal' | 'archived';
  isDefault: boolean;
  delFlag: boolean;
  createdAt: number;
  updatedAt: number;
}

/** A record as stored in `<prefix>records` (docs/sync.md, "Document shapes"). */
export interface PhoneRecord {
  _id: string;
  _rev: string;
  userId: string;
  type: 'income' | 'expense' | 'transfer';
  /** Integer minor units. */
  amount: number;
  asset: string;
  toAsset: string;
  toAmount: number;
  fee: number;
  category: string;
  description: string;
  searchText: string;
  date: number;
  tags: string[];
  attachments: string[];
  importKey: string;
  createdAt: number;
  updatedAt: number;
}

export interface NewRecord {
  asset: string;
  /** Integer minor units (1250 = 12.50). */
  amount: number;
  category?: string;
  description?: string;
  /** ms since the epoch (default now). */
  date?: number;
  tags?: string[];
}

export type RecordChanges = Partial<Pick<PhoneRecord, 'amount' | 'category' | 'description' | 'date' | 'tags' | 'asset' | 'toAsset' | 'toAmount' | 'fee' | 'type'>>;

export interface LedgerPhone {
  readonly ownerId: string;
  readonly prefix: string;
  readonly online: boolean;
  readonly lastError: unknown;
  goOnline(): void;
  goOffline(): void;
  assets(): Promise<PhoneAsset[]>;
  records(options?: { limit?: number }): Promise<PhoneRecord[]>;
  record(id: string): Promise<PhoneRecord | undefined>;
  /** Per asset id: balance in minor units. */
  balances(): Promise<Record<string, { name: string; currency: string; balance: number }>>;
  addRecord(fields: NewRecord & { type: 'income' | 'expense' }): Promise<string>;
  addExpense(fields: NewRecord): Promise<string>;
  addIncome(fields: NewRecord): Promise<string>;
  editRecord(id: string, changes: RecordChanges): Promise<void>;
  deleteRecord(id: string): Promise<void>;
  close(): Promise<void>;
}

export function defaultPrefix(username: string): string;
export function connect(options: ConnectOptions): Promise<LedgerPhone>;

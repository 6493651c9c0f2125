/**
 * A phone for a PennyPost ledger: reads and writes the ledger through CouchDB alone, the way a
 * mobile app would (docs/sync.md, "A phone client"). It keeps a local PouchDB copy of the ledger's
 * `assets` and `records`, replicating live both ways with the remote databases, so it works
 * offline: what it writes while offline goes up when it is back, what PennyPost wrote comes down.
 *
 *   import { connect } from './ledger-phone.mjs';
 *   const phone = await connect({ url: 'https://couch.example.com/', username: 'alice', password: '…' });
 *   console.log(await phone.balances());
 *   const id = await phone.addExpense({ asset: cashId, amount: 1250, category: 'Food', description: 'Lunch' });
 *   await phone.editRecord(id, { amount: 1500 });
 *   await phone.deleteRecord(id);
 *
 * Documents are written exactly in the shapes of docs/sync.md ("Document shapes"): money in
 * integer minor units of the asset's currency (1250 = 12.50 USD), times in ms since the epoch,
 * `userId` = the ledger's owner id (read once from `<prefix>meta/ledger-owner`), and a later
 * `updatedAt` on every edit (the conflict merge of every device: the later `updatedAt` wins).
 *
 * PouchDB: pass your own (`PouchDB` option: `pouchdb` in Node with its default LevelDB store,
 * `pouchdb-browser` with IndexedDB in a web view or a Cordova/Capacitor app). Without one, this
 * module loads the `pouchdb` package, or else assembles PouchDB from `pouchdb-core`,
 * `pouchdb-adapter-http`, `pouchdb-replication` and `pouchdb-adapter-memory` (memory only: for
 * trying it out and for tests).
 */

/** The collections a phone needs for the ledger (docs/sync.md, "What syncs"). */
const COLLECTIONS = ['assets', 'records'];

/** The record fields a phone may change with editRecord (the rest belongs to the record's identity). */
const EDITABLE = ['amount', 'category', 'description', 'date', 'tags', 'asset', 'toAsset', 'toAmount', 'fee', 'type'];

async function loadPouchDB() {
  const load = async (name) => (await import(/* @vite-ignore */ name)).default;
  try {
    return await load('pouchdb');
  } catch {
    // Plugins change the pouchdb-core they are given, which the app may share: each is added only
    // when it is not there yet (adding replication twice throws).
    const core = await load('pouchdb-core');
    if (!core.adapters?.http) core.plugin(await load('pouchdb-adapter-http'));
    if (typeof core.replicate !== 'function') core.plugin(await load('pouchdb-replication'));
    if (!core.adapters?.memory) core.plugin(await load('pouchdb-adapter-memory'));
    return core;
  }
}

/** The default database prefix of a CouchDB user (the same rule as PennyPost's, server/sync/service.ts). */
export function defaultPrefix(username) {
  const cleaned = username
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/^[^a-z]+/, '');
  return `pennypost_${cleaned || 'user'}_`.slice(0, 100);
}

/** A new document id: 24 hex characters (any unique string of at most 40 characters will do). */
function newId() {
  return globalThis.crypto.randomUUID().replace(/-/g, '').slice(0, 24);
}

function minorUnits(name, value, min) {
  if (!Number.isSafeInteger(value) || value < min || value > 1e15) {
    throw new RangeError(`${name} must be a whole number of minor units from ${min} to 10^15 (1250 = 12.50), not ${value}`);
  }
  return value;
}

/** The effects of a record on its assets' balances, in minor units (server/ledger/views.ts). */
function effectsOf(record) {
  switch (record.type) {
    case 'income':
      return [[record.asset, record.amount]];
    case 'expense':
      return [[record.asset, -record.amount]];
    case 'transfer':
      return [
        [record.asset, -(record.amount + record.fee)],
        [record.toAsset, record.toAmount > 0 ? record.toAmount : record.amount],
      ];
    default:
      return [];
  }
}

/**
 * Connects to a PennyPost ledger on a CouchDB server and starts replicating it.
 *
 * @param {object} options
 * @param {string} options.url the CouchDB server's base URL, e.g. https://couch.example.com/
 * @param {string} options.username a CouchDB user that may read and write the ledger's databases
 * @param {string} options.password
 * @param {string} [options.prefix] the ledger's database prefix (default: `pennypost_<username>_`)
 * @param {string} [options.ownerId] the ledger owner id (default: read from `<prefix>meta/ledger-owner`)
 * @param {any} [options.PouchDB] the PouchDB constructor to use
 * @param {string} [options.adapter] the local store's adapter (e.g. 'idb', 'leveldb', 'memory')
 * @param {string} [options.localName] the local databases' name prefix (default: `phone-<prefix>`)
 * @param {boolean} [options.online] start replicating at once (default true)
 */
export async function connect(options) {
  const { url, username, password } = options;
  if (!/^https?:\/\//.test(url ?? '')) throw new TypeError('url must be the CouchDB server address, e.g. https://couch.example.com/');
  const base = url.endsWith('/') ? url : `${url}/`;
  const prefix = options.prefix ?? defaultPrefix(username);
  const PouchDB = options.PouchDB ?? (await loadPouchDB());
  const auth = { username, password };
  const remote = (collection) => new PouchDB(`${base}${prefix}${collection}`, { adapter: 'http', auth, skip_setup: true });

  const ownerId = options.ownerId ?? (await remote('meta').get('ledger-owner')).ownerId;
  if (typeof ownerId !== 'string' || ownerId === '') throw new Error(`${prefix}meta has no ledger owner: configure sync in PennyPost first`);

  const localName = options.localName ?? `phone-${prefix}`;
  const localOptions = options.adapter ? { adapter: options.adapter } : {};
  const db = Object.fromEntries(COLLECTIONS.map((name) => [name, new PouchDB(`${localName}${name}`, localOptions)]));
  const remotes = Object.fromEntries(COLLECTIONS.map((name) => [name, remote(name)]));

  /** @type {Array<{ cancel(): void }>} */
  let replications = [];
  let lastError = null;

  const phone = {
    ownerId,
    prefix,

    /** Whether the phone is replicating (it is "online"). */
    get online() {
      return replications.length > 0;
    },

    /** The last replication error (null: none); replication retries by itself. */
    get lastError() {
      return lastError;
    },

    /** Starts live two-way replication of every collection (retries by itself while the server is away). */
    goOnline() {
      if (replications.length > 0) return;
      replications = COLLECTIONS.map((name) =>
        db[name]
          .sync(remotes[name], { live: true, retry: true })
          .on('error', (error) => (lastError = error))
          .on('change', () => (lastError = null)),
      );
    },

    /** Stops replicating (the phone keeps working on its local copy). */
    goOffline() {
      for (const replication of replications) replication.cancel();
      replications = [];
    },

    /** The ledger's assets (not deleted), by name. */
    async assets() {
      const { rows } = await db.assets.allDocs({ include_docs: true });
      return rows
        .map((row) => row.doc)
        .filter((doc) => doc.userId === ownerId && !doc.delFlag)
        .sort((a, b) => a.name.localeCompare(b.name));
    },

    /** Records, newest first. */
    async records({ limit = 50 } = {}) {
      const { rows } = await db.records.allDocs({ include_docs: true });
      return rows
        .map((row) => row.doc)
        .filter((doc) => doc.userId === ownerId)
        .sort((a, b) => b.date - a.date)
        .slice(0, limit);
    },

    /** One record (undefined: not on this phone, or deleted). */
    async record(id) {
      return db.records.get(id).catch((error) => {
        if (error.status === 404) return undefined;
        throw error;
      });
    },

    /**
     * Balance of every asset in its minor units: opening balance + the effects of the records on
     * this phone (PennyPost's rule, server/ledger/views.ts).
     * @returns {Promise<Record<string, { name: string; currency: string; balance: number }>>}
     */
    async balances() {
      const out = {};
      for (const asset of await phone.assets()) out[asset._id] = { name: asset.name, currency: asset.currency, balance: asset.openingBalance };
      const { rows } = await db.records.allDocs({ include_docs: true });
      for (const { doc } of rows) {
        if (doc.userId !== ownerId) continue;
        for (const [assetId, effect] of effectsOf(doc)) if (out[assetId]) out[assetId].balance += effect;
      }
      return out;
    },

    /** Writes an income or an expense (amount in minor units); returns its id. */
    async addRecord({ type, asset, amount, category = '', description = '', date, tags = [] }) {
      if (type !== 'income' && type !== 'expense') throw new TypeError('type must be income or expense (transfers: addTransfer)');
      if (typeof asset !== 'string' || asset === '') throw new TypeError('asset must be the _id of an asset of the ledger');
      const now = Date.now();
      const doc = {
        _id: newId(),
        userId: ownerId,
        type,
        amount: minorUnits('amount', amount, 1),
        asset,
        toAsset: '',
        toAmount: 0,
        fee: 0,
        category,
        description,
        searchText: description.normalize('NFKC').toLowerCase(),
        date: date ?? now,
        tags,
        attachments: [],
        importKey: '',
        createdAt: now,
        updatedAt: now,
      };
      await db.records.put(doc);
      return doc._id;
    },

    /** An expense from `asset` (amount in minor units, e.g. 1250 = 12.50); returns its id. */
    async addExpense(fields) {
      return phone.addRecord({ ...fields, type: 'expense' });
    },

    /** An income into `asset`; returns its id. */
    async addIncome(fields) {
      return phone.addRecord({ ...fields, type: 'income' });
    },

    /** Changes a record (amounts in minor units); its `updatedAt` becomes later than any before. */
    async editRecord(id, changes) {
      const current = await db.records.get(id);
      const next = { ...current };
      for (const [key, value] of Object.entries(changes)) {
        if (!EDITABLE.includes(key)) throw new TypeError(`${key} cannot be edited`);
        next[key] = value;
      }
      minorUnits('amount', next.amount, 1);
      minorUnits('fee', next.fee, 0);
      minorUnits('toAmount', next.toAmount, 0);
      next.searchText = next.description.normalize('NFKC').toLowerCase();
      next.updatedAt = Math.max(Date.now(), current.updatedAt + 1);
      await db.records.put(next);
    },

    /** Deletes a record (a CouchDB deletion: every PennyPost drops it). */
    async deleteRecord(id) {
      await db.records.remove(await db.records.get(id));
    },

    /** Stops replicating and closes the local databases (their data stays on the phone). */
    async close() {
      phone.goOffline();
      for (const name of COLLECTIONS) {
        await db[name].close();
        await remotes[name].close();
      }
    },
  };

  if (options.online !== false) phone.goOnline();
  return phone;
}

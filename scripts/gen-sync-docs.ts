import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { allDomains } from '../server/domains';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BEGIN = '<!-- generated: document shapes (npm run docs:sync) -->';
const END = '<!-- end of generated shapes -->';

/** Units and meanings that the JSON schemas cannot say. */
const NOTES: Record<string, string> = {
  id: 'primary key; on CouchDB it is `_id`',
  userId: 'the ledger owner id on the server (see Ownership); the local account id on each PennyPost',
  createdAt: 'ms since epoch',
  updatedAt: 'ms since epoch; the conflict merge compares it',
  date: 'ms since epoch',
  amount: 'integer minor units of the currency (1234 = 12.34 USD)',
  openingBalance: 'integer minor units of the asset currency',
  toAmount: 'integer minor units of the target asset currency; 0 = same as amount',
  fee: 'integer minor units of the source asset currency',
  targetAmount: 'integer minor units of the goal currency',
  currentAmount: 'integer minor units of the goal currency',
  cash: 'coin cents (virtual coins, 2 decimals): + grants, rewards, sells; − buys',
  price: 'coin cents per share',
  rate: 'decimal text: 1 `from` = `rate` `to`',
  reward: 'coin cents',
  kind: '`budget` or `recurring`; the fields of the other kind hold their empty values',
  categories: 'budget: the category names it counts; recurring: []',
  allCategories: 'budget: counts every expense',
  startMonth: 'budget: the first month it counts, `YYYY-MM`',
  rollover: 'budget: what is left (or overspent) carries into the next month',
  template: 'recurring: the record it writes `{type, amount, category, asset, toAsset, toAmount, fee, description, tags}`, amounts in minor units of the asset currency',
  rule: 'recurring: `{freq, interval, byMonthDay, byWeekday}` (docs/budgets.md)',
  timeZone: 'recurring: the IANA zone its dates are counted in',
  mode: 'recurring: `auto` writes the record on its date, `confirm` waits for a tap',
  skipped: 'recurring: occurrence dates (`YYYY-MM-DD`) that were skipped',
  doneThrough: 'recurring: the last occurrence date already handled',
  defaultKey: "the default category it was seeded as (`food`, `salary`…); absent or '' for the person's own; a phone that renames a category may leave it",
};

/** The parts of a property's JSON schema that the table shows. */
interface PropertySchema {
  type?: string | readonly string[];
  items?: { type?: string | readonly string[] };
  maxItems?: number;
  enum?: readonly unknown[];
  maxLength?: number;
}

function describe(prop: PropertySchema): string {
  const parts: string[] = [];
  if (prop.type === 'array') parts.push(`array of ${String(prop.items?.type ?? 'any')}${prop.maxItems ? ` (≤ ${prop.maxItems})` : ''}`);
  else parts.push(String(prop.type ?? 'any'));
  if (prop.enum) parts.push(`one of ${prop.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (prop.maxLength !== undefined && !prop.enum) parts.push(`≤ ${prop.maxLength} chars`);
  return parts.join(', ');
}

export function renderShapes(): string {
  const out: string[] = [BEGIN, ''];
  // The collections marked `sync` (server/db/collections.ts), in definition order.
  for (const def of allDomains()
    .flatMap((d) => d.collections ?? [])
    .filter((d) => d.sync)) {
    const name = def.name;
    const schema = def.schema;
    const required = new Set<unknown>(schema.required ?? []);
    out.push(`### \`${name}\` (remote database \`<prefix>${name}\`, schema version ${schema.version})`, '');
    out.push('| field | type | required | meaning |', '|---|---|---|---|');
    for (const [field, prop] of Object.entries(schema.properties as Record<string, PropertySchema>)) {
      out.push(`| \`${field === schema.primaryKey ? '_id' : field}\` | ${describe(prop)} | ${required.has(field) ? 'yes' : 'no'} | ${NOTES[field] ?? ''} |`);
    }
    out.push('');
  }
  out.push(END);
  return out.join('\n');
}

export function currentSyncDocs(): string {
  const file = readFileSync(path.join(root, 'docs/sync.md'), 'utf8');
  const start = file.indexOf(BEGIN);
  const end = file.indexOf(END);
  if (start < 0 || end < 0) throw new Error('docs/sync.md lacks the generated-section markers');
  return file.slice(0, start) + renderShapes() + file.slice(end + END.length);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  writeFileSync(path.join(root, 'docs/sync.md'), currentSyncDocs());
  process.stdout.write('wrote docs/sync.md\n');
}

import type { AnyAction } from './action';
import type { ErrorRow } from '../lib/errors';
import { resultTypeText, shapesSection, type ShapeRegistry } from './result-docs';
import { describeWritePolicy } from './write-policies';

/**
 * Renders docs/api.md from the action declarations (name, auth, params schema, returns, errors),
 * so the reference cannot drift from the code. `npm run docs:api` writes it; a test compares.
 */
/** The JSON Schema keywords the reference reads (TypeBox schemas are plain JSON Schema objects). */
interface Schema {
  const?: unknown;
  anyOf?: Schema[];
  enum?: unknown[];
  type?: string | string[];
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  exclusiveMaximum?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  hint?: string;
  default?: unknown;
  description?: string;
}

function typeOf(schema: Schema): string {
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(' \\| ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' \\| ');
  if (schema.type === 'array') return `${typeOf(schema.items ?? {})}[]`;
  if (schema.type === 'object' && schema.properties) return 'object';
  return String(schema.type ?? 'any');
}

function constraints(schema: Schema): string {
  const parts: string[] = [];
  const target = schema.type === 'array' ? { ...schema.items, ...schema } : schema;
  if (target.minLength !== undefined) parts.push(`min length ${target.minLength}`);
  if (target.maxLength !== undefined) parts.push(`max length ${target.maxLength}`);
  if (target.minimum !== undefined) parts.push(`≥ ${target.minimum}`);
  if (target.exclusiveMinimum !== undefined) parts.push(`> ${target.exclusiveMinimum}`);
  if (target.maximum !== undefined) parts.push(`≤ ${target.maximum}`);
  if (target.exclusiveMaximum !== undefined) parts.push(`< ${target.exclusiveMaximum}`);
  if (schema.type === 'array' && schema.maxItems !== undefined) parts.push(`at most ${schema.maxItems} items`);
  if (target.format) parts.push(`format ${target.format}`);
  if (target.pattern) parts.push(`pattern \`${target.pattern}\`${target.hint ? ` (hint \`${target.hint}\`)` : ''}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(', ');
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function paramsTable(schema: Schema): string {
  const properties = schema.properties ?? {};
  const entries = Object.entries(properties);
  if (entries.length === 0) return '_No params: send `{}`._\n';
  const required = new Set<string>(schema.required ?? []);
  const rows = entries.map(
    ([name, p]) => `| \`${name}\` | ${typeOf(p)} | ${required.has(name) ? 'yes' : 'no'} | ${escapeCell(constraints(p))} | ${escapeCell(p.description ?? '')} |`,
  );
  return ['| param | type | required | constraints | meaning |', '|---|---|---|---|---|', ...rows].join('\n') + '\n';
}

/** An action's result: its schema as a type line and the schema's own words. */
function returnsLine(action: AnyAction, shapes: ShapeRegistry): string {
  const schema = action.result as { description?: string; title?: string };
  const words = schema.description && !schema.title ? ` — ${schema.description}` : '';
  return `\`${resultTypeText(action.result, shapes)}\`${words}`;
}

/**
 * `catalogues`: every domain's error catalogue, to name the rows the actions list
 * (`ledger.assetNotFound`).
 */
export function renderApiDocs(actions: readonly AnyAction[], preamble: string, catalogues: Readonly<Record<string, { rows: Record<string, ErrorRow> }>> = {}): string {
  const rowNames = new Map<ErrorRow, string>();
  for (const [domain, catalogue] of Object.entries(catalogues)) for (const [name, row] of Object.entries(catalogue.rows)) rowNames.set(row, `${domain}.${name}`);
  const groups = new Map<string, AnyAction[]>();
  for (const action of actions) {
    const dot = action.name.indexOf('.');
    const group = dot === -1 ? action.name : action.name.slice(0, dot);
    groups.set(group, [...(groups.get(group) ?? []), action]);
  }
  const shapes: ShapeRegistry = new Map();
  const out: string[] = [preamble.trim(), ''];
  out.push('## Actions', '');
  for (const [group, list] of groups) {
    out.push(`- **${group}**: ${list.map((a) => `[\`${a.name}\`](#${a.name.replace('.', '').toLowerCase()})`).join(', ')}`);
  }
  out.push('');
  for (const [group, list] of groups) {
    out.push(`## ${group}`, '');
    for (const action of list) {
      out.push(`### ${action.name}`, '');
      out.push(action.summary, '');
      out.push(`- Auth: ${action.auth === 'public' ? 'public (no token)' : 'Bearer token'}${action.rateLimit === 'auth' ? '; counts against the sign-in rate limit' : ''}`);
      const writes = describeWritePolicy(action.writes);
      if (writes) out.push(`- Writes: ${writes}`);
      out.push(`- Returns: ${returnsLine(action, shapes)}`, '');
      if (action.notes) out.push(action.notes, '');
      out.push(paramsTable(action.params));
      const errors = action.errors ?? [];
      if (errors.length > 0) {
        out.push('| code | HTTP | when |', '|---|---|---|');
        for (const [row, when] of errors) out.push(`| ${row.code} ${rowNames.get(row) ?? ''} | ${row.status} | ${escapeCell(when)} |`);
        out.push('');
      }
    }
  }
  if (shapes.size > 0) out.push('## Shapes', '', 'The named result shapes the actions above refer to.', '', ...shapesSection(shapes));
  return (
    out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trimEnd() + '\n'
  );
}

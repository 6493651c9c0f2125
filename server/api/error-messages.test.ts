import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { allDomains, allErrorCatalogues } from '../domains';
import { actionsOf } from '../domain';
import type { ErrorRow } from '../lib/errors';
import { IMPORT_PROBLEM_KINDS } from '../ledger/import-export';

// The UI says every error in its own words (renderer/src/lib/errors.ts, docs/ui.md "Error messages"):
// a new catalogue row, a new validation keyword, format or pattern hint without words in both
// languages fails here.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
type Strings = Record<string, unknown>;
const languages: Record<'en' | 'zh-CN', Strings> = {
  en: JSON.parse(readFileSync(path.join(root, 'renderer/src/i18n/en.json'), 'utf8')) as Strings,
  'zh-CN': JSON.parse(readFileSync(path.join(root, 'renderer/src/i18n/zh-CN.json'), 'utf8')) as Strings,
};

function lookup(strings: Strings, key: string): unknown {
  let node: unknown = strings;
  for (const step of key.split('.')) node = node && typeof node === 'object' ? (node as Strings)[step] : undefined;
  return node;
}

/** The key's text in both languages: present, not empty, Chinese with Chinese in it. */
function expectWords(key: string): string[] {
  return Object.entries(languages).map(([language, strings]) => {
    const text = lookup(strings, key);
    expect(typeof text === 'string' && text.trim().length > 0, `${language} ${key}`).toBe(true);
    if (language === 'zh-CN') expect(String(text), `${language} ${key}`).toMatch(/\p{Script=Han}/u);
    return String(text);
  });
}

type Node = Record<string, unknown>;
function* nodes(schema: unknown): Generator<Node> {
  if (!schema || typeof schema !== 'object') return;
  yield schema as Node;
  for (const child of Object.values(schema)) yield* nodes(child);
}

/** The JSON Schema keywords ajv can fail on. */
const VALIDATION_KEYWORDS = [
  'type',
  'required',
  'additionalProperties',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
  'uniqueItems',
  'multipleOf',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  'format',
  'pattern',
  'minProperties',
  'maxProperties',
  'contains',
  'propertyNames',
  'dependencies',
  'dependentRequired',
];

describe('every error the UI can meet has words in English and Chinese', () => {
  it('every row of every catalogue (but the shared one-off sentences), placeholders within its arguments', () => {
    for (const [catalogue, { rows, reasonPrefix }] of Object.entries(allErrorCatalogues())) {
      if (reasonPrefix === null) continue;
      for (const [name, row] of Object.entries(rows as Record<string, ErrorRow<unknown[]>>)) {
        for (const text of expectWords(`errors.reason.${catalogue}.${name}`)) {
          for (const [, index] of text.matchAll(/\{\{(\d+)\}\}/g)) expect(Number(index), `${catalogue}.${name}: ${text}`).toBeLessThan(row.message.length);
          expect(text, `${catalogue}.${name}`).not.toMatch(/params\.|\{\{[a-z]/);
        }
      }
    }
  });

  it('every validation keyword, format and pattern hint the action schemas use', () => {
    const keywords = new Set(['type', 'required', 'additionalProperties']);
    const formats = new Set<string>();
    const hints = new Set<string>(['text']);
    for (const action of actionsOf(allDomains())) {
      for (const node of nodes(action.params)) {
        for (const keyword of VALIDATION_KEYWORDS) if (keyword in node && (keyword !== 'additionalProperties' || node[keyword] !== true)) keywords.add(keyword);
        if (typeof node.format === 'string') formats.add(node.format);
        if (typeof node.hint === 'string') hints.add(node.hint);
      }
    }
    expect(keywords.size).toBeGreaterThan(8);
    for (const keyword of keywords) if (keyword !== 'format' && keyword !== 'pattern') expectWords(`errors.rule.${keyword}`);
    for (const format of formats) expectWords(`errors.format.${format}`);
    for (const hint of hints) expectWords(`errors.hint.${hint}`);
  });

  it('every kind of CSV row an import refuses', () => {
    for (const kind of IMPORT_PROBLEM_KINDS) expectWords(`errors.importRow.${kind}`);
  });

  it('has the same error keys in both languages', () => {
    const keys = (node: unknown, prefix = ''): string[] => (node && typeof node === 'object' ? Object.entries(node).flatMap(([k, v]) => keys(v, `${prefix}.${k}`)) : [prefix]);
    expect(keys(languages['zh-CN'].errors).sort()).toEqual(keys(languages.en.errors).sort());
  });
});

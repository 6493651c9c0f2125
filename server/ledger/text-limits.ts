/**
 * The text limits of records, assets and categories, in characters as JSON Schema counts them (code points:
 * an emoji is one). The actions' params use them through `Text()` (server/api/params.ts), which
 * keeps the number in the schema's type, and the CSV import refuses a row beyond them instead of
 * cutting it; the UI takes them from the generated param limits (scripts/gen-validators.ts).
 */
export const RECORD_TEXT = { description: 1000, tag: 32, tags: 20 } as const;
export const ASSET_TEXT = { name: 100, description: 1000 } as const;
export const CATEGORY_TEXT = { name: 64 } as const;

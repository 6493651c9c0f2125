/**
 * Renders result schemas (server/api/result.ts) for docs/api.md: a compact type line for each
 * action (`{list: Asset[], total: integer}`) and one table per named shape (`Shape('Asset', …)`).
 */

/** The JSON Schema keywords a result type line reads. */
interface ResultSchema {
  title?: string;
  description?: string;
  const?: unknown;
  anyOf?: ResultSchema[];
  enum?: unknown[];
  type?: string | string[];
  items?: ResultSchema;
  properties?: Record<string, ResultSchema>;
  patternProperties?: Record<string, ResultSchema>;
  required?: string[];
}

/** Named shapes met while rendering, by name, in the order they were first met. */
export type ShapeRegistry = Map<string, ResultSchema>;

function objectText(schema: ResultSchema, shapes: ShapeRegistry): string {
  if (schema.patternProperties) {
    const value = Object.values(schema.patternProperties).at(0);
    return `{[key: string]: ${resultTypeText(value ?? {}, shapes)}}`;
  }
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, field]) => `${name}${required.has(name) ? '' : '?'}: ${resultTypeText(field, shapes)}`);
  return `{${fields.join(', ')}}`;
}

/** One schema as a type line; named shapes are registered and referred to by name. */
export function resultTypeText(schema: ResultSchema, shapes: ShapeRegistry): string {
  if (schema.title) {
    if (!shapes.has(schema.title)) {
      shapes.set(schema.title, schema);
      // Shapes inside the shape are registered now, so the list reads outside-in.
      objectText(schema, shapes);
    }
    return schema.title;
  }
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.anyOf) return schema.anyOf.map((s) => resultTypeText(s, shapes)).join(' | ');
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (schema.type === 'array') return `${wrap(resultTypeText(schema.items ?? {}, shapes))}[]`;
  if (schema.type === 'object' || schema.properties || schema.patternProperties) return objectText(schema, shapes);
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  return schema.type ?? 'any';
}

function wrap(text: string): string {
  return text.includes(' | ') ? `(${text})` : text;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The "Shapes" section: one table per named shape, fields with their types and meanings. */
export function shapesSection(shapes: ShapeRegistry): string[] {
  const out: string[] = [];
  // Rendering a shape's fields may name shapes not met yet: walk until the list stops growing.
  for (let done = 0; done < shapes.size; done++) {
    const entry = [...shapes.entries()].at(done);
    if (!entry) break;
    const [name, schema] = entry;
    out.push(`### ${name}`, '');
    if (schema.description) out.push(schema.description, '');
    const required = new Set(schema.required ?? []);
    out.push('| field | type | meaning |', '|---|---|---|');
    for (const [field, fieldSchema] of Object.entries(schema.properties ?? {})) {
      const type = resultTypeText(fieldSchema, shapes);
      out.push(`| \`${field}\`${required.has(field) ? '' : ' (optional)'} | ${cell(`\`${type}\``)} | ${cell(fieldSchema.description ?? '')} |`);
    }
    out.push('');
  }
  return out;
}

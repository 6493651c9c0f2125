/**
 * No fixed sleep over 100 ms in the tests (issue 37): a test waits on its condition (expect.poll,
 * vi.waitFor, an event, Playwright's auto-waiting expect) or moves a ManualClock, never for a
 * fixed time that is too long on a quiet machine and too short on a loaded one.
 *
 * This scans the test files for waits whose length is written down: `setTimeout(resolve, N)`
 * (also `setTimeout(() => resolve(…), N)` and timers/promises' `await setTimeout(N)`),
 * `sleep(N)`, `delay(N)`, `pause(N)` and Playwright's `waitForTimeout(N)`. N counts as over 100 ms
 * when it is a number over 100, a `const` of this file over 100, or a named constant from
 * elsewhere (an UPPER_CASE name: its value is not known here). A timer that rejects or kills is a
 * deadline, not a wait, and is not counted.
 *
 * Where the wait IS what the test checks (a timeout being measured, a crash at a random moment), the
 * line, or the one above it, carries `fixed-wait-ok:` and the reason (`grep -rn fixed-wait-ok` lists them).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LIMIT_MS = 100;
const EXEMPTION = 'fixed-wait-ok:';

interface FixedWait {
  line: number;
  text: string;
}

/** Test files: server/**\/*.test.ts, scripts/**\/*.test.ts, e2e/*.spec.ts. */
function testFiles(): string[] {
  const found: string[] = [];
  const walk = (dir: string, match: (name: string) => boolean, deep: boolean) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (deep && entry.name !== 'node_modules') walk(relative, match, deep);
      } else if (match(entry.name)) found.push(relative);
    }
  };
  walk('server', (name) => name.endsWith('.test.ts'), true);
  walk('scripts', (name) => name.endsWith('.test.ts'), true);
  walk('e2e', (name) => name.endsWith('.spec.ts'), false);
  return found.filter((file) => file !== path.join('scripts', 'no-fixed-sleeps.test.ts')).sort();
}

/** The top-level arguments of the call whose `(` is at `open`, as source text. */
function callArguments(source: string, open: number): string[] {
  const args: string[] = [];
  let depth = 0;
  let start = open + 1;
  let quote: string | null = null;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) {
        args.push(source.slice(start, i).trim());
        return args.filter((arg, index) => arg !== '' || index < args.length - 1);
      }
    } else if (c === ',' && depth === 1) {
      args.push(source.slice(start, i).trim());
      start = i + 1;
    }
  }
  return args;
}

/** `const name = 1_500` (a plain number) in this file. */
function fileConstants(source: string): Map<string, number> {
  const constants = new Map<string, number>();
  for (const [, name = '', value = ''] of source.matchAll(/\bconst\s+([A-Za-z_$][\w$]*)\s*=\s*([\d_]+(?:\.\d+)?)\s*[;\n]/g)) {
    constants.set(name, Number(value.replaceAll('_', '')));
  }
  return constants;
}

/** Whether a delay expression may be over the limit (see the top of the file). */
function overLimit(expression: string, constants: Map<string, number>): boolean {
  for (const [, digits = ''] of expression.matchAll(/(?<![\w$.])(\d[\d_]*(?:\.\d+)?)(?![\w$])/g)) {
    if (Number(digits.replaceAll('_', '')) > LIMIT_MS) return true;
  }
  for (const [, name = ''] of expression.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)/g)) {
    const known = constants.get(name);
    if (known !== undefined) {
      if (known > LIMIT_MS) return true;
    } else if (/^[A-Z][A-Z0-9_]*$/.test(name) && name.length > 1) return true;
  }
  return false;
}

/** A timer callback that ends a wait: `r`, `resolve`, `() => r(…)`, `() => { resolve(…) }`. */
function resolvesAWait(callback: string): boolean {
  return /^(r|res|resolve|done|wake)$/.test(callback) || /=>\s*\{?\s*(r|res|resolve|done|wake)\(/.test(callback);
}

/** The fixed waits over the limit in one file's source, exemptions left out. */
function findFixedWaits(source: string): FixedWait[] {
  const constants = fileConstants(source);
  const lines = source.split('\n');
  const found: FixedWait[] = [];
  const report = (index: number) => {
    const line = source.slice(0, index).split('\n').length;
    const here = lines[line - 1] ?? '';
    const above = lines[line - 2] ?? '';
    if (here.includes(EXEMPTION) || above.includes(EXEMPTION)) return;
    if (!found.some((f) => f.line === line)) found.push({ line, text: here.trim() });
  };
  for (const match of source.matchAll(/(?<![\w$])(setTimeout|sleep|delay|pause|waitForTimeout)\s*\(/g)) {
    const name = match[1];
    const open = match.index + match[0].length - 1;
    const args = callArguments(source, open);
    const [first = '', second = ''] = args; // read only where args.length says they are there
    if (name === 'setTimeout') {
      // timers/promises: await setTimeout(ms)
      if (args.length === 1 && /await\s+$/.test(source.slice(Math.max(0, match.index - 12), match.index))) {
        if (overLimit(first, constants)) report(match.index);
      } else if (args.length >= 2 && resolvesAWait(first) && overLimit(second, constants)) report(match.index);
    } else if (args.length >= 1 && overLimit(first, constants)) {
      // a helper's own definition (`const sleep = (ms) => …`) has no length; its calls do
      report(match.index);
    }
  }
  return found;
}

describe('no fixed sleeps in tests', () => {
  it('finds the ways a test waits for a fixed time', () => {
    const waits = (source: string) => findFixedWaits(source).map((wait) => wait.line);
    expect(waits('await new Promise((r) => setTimeout(r, 1000));')).toEqual([1]);
    expect(waits('await new Promise((resolve) =>\n  setTimeout(resolve, 1_500),\n);')).toEqual([2]);
    expect(waits("await Promise.race([ended, new Promise((r) => setTimeout(() => r('open'), 300))]);")).toEqual([1]);
    expect(waits('await new Promise((r) => setTimeout(r, ALERT_DEBOUNCE_MS + 700));')).toEqual([1]);
    expect(waits('await new Promise((r) => setTimeout(r, SETTLE_MS));')).toEqual([1]);
    expect(waits('const WAIT = 250;\nawait new Promise((r) => setTimeout(r, WAIT));')).toEqual([2]);
    expect(waits('const wait = 250;\nawait sleep(wait);')).toEqual([2]);
    expect(waits("import { setTimeout } from 'node:timers/promises';\nawait setTimeout(2000);")).toEqual([2]);
    expect(waits('await page.waitForTimeout(10_500);')).toEqual([1]);
    expect(waits('await sleep(30_000);\nawait delay(101);\nawait pause(300);')).toEqual([1, 2, 3]);
  });

  it('lets short waits, deadlines, helpers and marked exemptions be', () => {
    expect(findFixedWaits('await new Promise((r) => setTimeout(r, 100));')).toEqual([]);
    expect(findFixedWaits('await sleep(5);\nawait pause();\nawait page.waitForTimeout(50);')).toEqual([]);
    expect(findFixedWaits("const timer = setTimeout(() => reject(new Error('no answer')), 30_000);")).toEqual([]);
    expect(findFixedWaits("setTimeout(() => child.kill('SIGKILL'), 30_000);")).toEqual([]);
    expect(findFixedWaits('const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));')).toEqual([]);
    expect(findFixedWaits('await sleep(killAfterMs); // fixed-wait-ok: the crash moment is what is tested')).toEqual([]);
    expect(findFixedWaits('// fixed-wait-ok: the timeout itself is measured\nawait new Promise((r) => setTimeout(r, 1000));')).toEqual([]);
    expect(findFixedWaits('test.setTimeout(60_000);')).toEqual([]);
  });

  it('no test file waits a fixed time over 100 ms', () => {
    const files = testFiles();
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => findFixedWaits(readFileSync(path.join(ROOT, file), 'utf8')).map((wait) => `${file}:${String(wait.line)}: ${wait.text}`));
    expect(found).toEqual([]);
  });
});

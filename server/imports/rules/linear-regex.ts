import { setFlagsFromString } from 'node:v8';

/**
 * Regular expressions of rules run in V8's linear-time engine (the `l` flag), so no pattern can
 * take exponential time on a description: a rule runs inside the server for every line of every
 * import and every inbox notice, and a catastrophic backtracking pattern like `(a|a)*b` would stall
 * it for everyone (ReDoS). The engine has no back-references or look-around, and no `i` or `u`
 * flag: rules match case-insensitively by lower-casing both the text and the pattern's letters.
 */
setFlagsFromString('--enable-experimental-regexp-engine');

/** The linear-time engine's flag: eslint does not know it (it exists only with the V8 flag above). */
const LINEAR = 'l';

function linearEngine(): boolean {
  try {
    return new RegExp('a', LINEAR).test('a');
  } catch {
    return false;
  }
}

/** Whether this runtime has the linear engine (Node ≥ 16 with the flag above). Without it regex rules are refused. */
export const LINEAR_REGEX = linearEngine();

/** The pattern with its letters lower-cased, escapes (`\W`, `\D`, `\u00C4`…) left as written. */
export function lowerPattern(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern.charAt(i);
    if (ch === '\\' && i + 1 < pattern.length) {
      out += ch + pattern.charAt(i + 1);
      i++;
    } else out += ch.toLowerCase();
  }
  return out;
}

/** Compiles a rule's pattern for lower-cased text; throws an Error whose message says why it cannot be used. */
export function compileRulePattern(pattern: string): RegExp {
  if (!LINEAR_REGEX) throw new Error('regular expressions are not available on this system');
  let syntax: unknown;
  try {
    new RegExp(pattern);
  } catch (error) {
    syntax = error;
  }
  if (syntax) throw new Error((syntax as Error).message.replace(/^Invalid regular expression: /, ''));
  try {
    return new RegExp(lowerPattern(pattern), LINEAR);
  } catch {
    throw new Error('back-references and look-around ((?=…), (?<=…), \\1) are not supported: rules use a linear-time engine');
  }
}

/**
 * Text that a spreadsheet would run as a formula ("CSV injection"): a cell that starts with `=`,
 * `+`, `-`, `@`, a tab or a carriage return. PennyPost writes such a cell with a leading
 * apostrophe — the spreadsheet convention for "this is text" — so opening an export in Excel,
 * LibreOffice or Numbers never evaluates a description like `=HYPERLINK(…)`; reading a CSV back
 * removes that apostrophe again, so an export imports back to the same text.
 *
 * Text that already starts with apostrophes before such a character (`'=x`, as someone typed it)
 * gets one more too (`''=x`), and reading drops exactly one: so every text reads back exactly as
 * written, and `'=x` no longer comes back as `=x`.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

/** The cell as an export writes it: formula-looking text (after any apostrophes) gets a leading apostrophe. */
export function neutraliseCell(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The text of a cell read from a CSV: the one apostrophe an export (or a spreadsheet) put before formula-looking text is dropped. */
export function restoreCell(text: string): string {
  return NEUTRALISED.test(text) ? text.slice(1) : text;
}

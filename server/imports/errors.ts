import { errorCatalogue } from '../lib/errors';

/**
 * The errors of statement imports, rules and the inbox (docs/api.md names them `imports.<row>`).
 * Codes are their HTTP status (these actions are PennyPost's own, not the seed's).
 */
export const importErrors = errorCatalogue(
  {
    unreadableStatement: { code: 400, status: 400, message: (format: string, why: string) => `This ${format} file cannot be imported: ${why}` },
    notBase64: { code: 400, status: 400, message: () => 'content must be the file in base64.' },
    needsContent: { code: 400, status: 400, message: () => 'Send the file as content (base64), or upload it first (file.upload) and send its fileId.' },
    statementTooLarge: { code: 5002, status: 413, message: (limit: string) => `The file is larger than ${limit}.` },
    tooManyLines: { code: 400, status: 400, message: (limit: number) => `The file has more than ${limit} transactions: split it by date.` },
    mappingNeeded: {
      code: 400,
      status: 400,
      message: () => 'A generic CSV needs a column mapping (mapping: {date, amount | inflow/outflow, payee?, description?…}); import.describeCsv shows the columns and a guess.',
    },
    uploadExpired: { code: 404, status: 404, message: () => 'This upload is unknown or has expired (uploads are kept 30 minutes, one per account): send the file again.' },
    previewExpired: { code: 404, status: 404, message: () => 'This preview has expired or was already imported: preview the file again.' },
    unknownLine: { code: 400, status: 400, message: (line: number) => `Line ${line} is not in this preview.` },
    overrideNotAllowed: { code: 400, status: 400, message: (line: number, why: string) => `Line ${line} cannot be changed that way: ${why}` },
    busy: {
      code: 503,
      status: 503,
      message: () => 'PennyPost is busy with other imports right now (the files being sent or read fill what it sets aside for them): try again in a few minutes.',
    },
    rulesTooSlow: {
      code: 400,
      status: 400,
      message: (seconds: number, ruleId: string) =>
        `Your rules took more than ${seconds} s on this file, so it was not imported${ruleId ? ` (the slowest is rule ${ruleId}, a regular expression)` : ''}: simplify regular-expression rules, or import the file in smaller parts.`,
    },
    wrongAsset: {
      code: 400,
      status: 400,
      message: (what: string, currency: string, asset: string, assetCurrency: string, suggestion: string) =>
        `This ${what} is in ${currency}, but ${asset} keeps ${assetCurrency}: import it into an asset in ${currency}${suggestion ? ` (such as ${suggestion})` : ''}. Nothing was read into ${asset}.`,
    },
    interruptedNotFound: { code: 404, status: 404, message: () => 'No such interrupted import: it was finished or forgotten, or is not yours.' },
    unknownImportTimeZone: { code: 400, status: 400, message: (zone: string) => `Unknown time zone "${zone}" (use an IANA name like "Asia/Shanghai").` },
    // — rules —
    ruleNotFound: { code: 404, status: 404, message: () => 'No such rule: it does not exist or is not yours.' },
    ruleOpNotForField: { code: 400, status: 400, message: (field: string, op: string, ops: string) => `A rule on ${field} cannot use "${op}" (use ${ops}).` },
    ruleBadValue: { code: 400, status: 400, message: (why: string) => `match.value ${why}` },
    ruleBadRegex: { code: 400, status: 400, message: (why: string) => `match.value is not a usable regular expression: ${why}` },
    ruleSetsNothing: { code: 400, status: 400, message: () => 'A rule must set something: set.category, set.tags or set.description.' },
    ruleUnknownCategory: { code: 400, status: 400, message: (name: string) => `There is no category "${name}" (category.list lists yours).` },
    ruleUnknownAsset: { code: 400, status: 400, message: () => 'match.value must be the id of one of your assets.' },
    tooManyRules: { code: 409, status: 409, message: (limit: number) => `At most ${limit} rules per account.` },
    // — inbox —
    draftNotFound: { code: 404, status: 404, message: () => 'No such inbox draft: it was confirmed, dismissed, or is not yours.' },
    draftNeedsAsset: { code: 400, status: 400, message: () => 'Choose the asset this payment belongs to (overrides.asset): the notice names no card of yours.' },
    draftCurrencyMismatch: {
      code: 400,
      status: 400,
      message: (currency: string, asset: string, assetCurrency: string) =>
        `The notice is in ${currency} but ${asset} keeps ${assetCurrency}: give overrides.amount in ${assetCurrency}, or choose another asset.`,
    },
    noticeNotUnderstood: {
      code: 400,
      status: 400,
      message: () => 'No amount was found in this message. Send the notice text as it came (e.g. "您尾号1234的卡消费25.00元"), or JSON {amount, merchant, type}.',
    },
    inboxFull: { code: 409, status: 409, message: (limit: number) => `The inbox holds at most ${limit} drafts: confirm or dismiss some first.` },
  },
  'imports',
);

import { parseAlipay, sniffAlipay } from './alipay';
import { parseCamt, sniffCamt } from './camt';
import { parseMappedCsv } from './csv-mapped';
import { parseOfx, sniffOfx } from './ofx';
import { parseQif, sniffQif } from './qif';
import type { ParsedStatement, ParseOptions, StatementFormat, StatementParser, StatementSniffer } from './types';
import { parseWechat, sniffWechat } from './wechat';

/** Every statement format PennyPost reads, by its name in import.preview. */
const PARSERS: Record<StatementFormat, StatementParser> = {
  alipay: parseAlipay,
  wechat: parseWechat,
  ofx: parseOfx,
  qif: parseQif,
  camt: parseCamt,
  csv: parseMappedCsv,
};

/** Checked in this order by guessFormat: the specific formats before the generic CSV. */
const SNIFFERS: Array<[StatementFormat, StatementSniffer]> = [
  ['alipay', sniffAlipay],
  ['wechat', sniffWechat],
  ['ofx', sniffOfx],
  ['camt', sniffCamt],
  ['qif', sniffQif],
];

export function parseStatement(format: StatementFormat, bytes: Buffer, options: ParseOptions): Promise<ParsedStatement> {
  return Promise.resolve(PARSERS[format](bytes, options));
}

/**
 * The format a file looks like, by its header and structure (each sniffer reads the file's first
 * kilobytes as its parser reads them); the generic CSV when none of the others claims it and it has
 * a comma, semicolon or tab. Words in the rows never decide: a bank's CSV whose rows name 支付宝
 * is a CSV.
 */
export function guessFormat(bytes: Buffer): StatementFormat | null {
  for (const [format, sniff] of SNIFFERS) if (sniff(bytes)) return format;
  const head = bytes.subarray(0, 4096).toString('latin1');
  return /[,;\t]/.test(head) ? 'csv' : null;
}

/**
 * The account a statement names near its top, for choosing the asset it belongs to: an OFX
 * ACCTID, a CAMT IBAN (or other id), a QIF `!Account` name. '' when it names none (or the format
 * does not say: Alipay and WeChat Pay bills belong to the app's own balance).
 */
export function accountOf(format: StatementFormat | null, bytes: Buffer): string {
  const head = bytes.subarray(0, 16_384).toString('utf8');
  const first = (pattern: RegExp) => pattern.exec(head)?.[1]?.trim() ?? '';
  switch (format) {
    case 'ofx':
      return first(/<ACCTID>\s*([^<\r\n]+)/i);
    case 'camt':
      return first(/<(?:\w+:)?IBAN>\s*([^<]+)</) || first(/<(?:\w+:)?Acct>\s*<(?:\w+:)?Id>\s*<(?:\w+:)?Othr>\s*<(?:\w+:)?Id>\s*([^<]+)</);
    case 'qif':
      // A full Quicken export lists all accounts first (AutoSwitch): it is no one account's statement.
      return /^!Option:AutoSwitch/im.test(head) ? '' : first(/^!Account[^\n]*\r?\n(?:[^\n]*\r?\n)*?N([^\r\n]+)/im);
    default:
      return '';
  }
}

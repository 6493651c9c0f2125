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

/** The format a file looks like (the generic CSV when none of the others claims it and it has a comma, semicolon or tab). */
export function guessFormat(bytes: Buffer): StatementFormat | null {
  for (const [format, sniff] of SNIFFERS) if (sniff(bytes)) return format;
  const head = bytes.subarray(0, 4096).toString('latin1');
  return /[,;\t]/.test(head) ? 'csv' : null;
}

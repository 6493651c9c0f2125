import { restoreCell } from '../../lib/spreadsheet-cells';
import { cleanCell } from './shared';
import type { CsvMapping } from './types';

/**
 * The vocabulary of the generic CSV format (./csv-mapped.ts) that reading, the date guess and the
 * mapping guess share: the columns a mapping names, the date formats, how a cell and a header
 * name are read, and the header names of common bank exports.
 */

export type DateFormat = NonNullable<CsvMapping['dateFormat']>;
export const DATE_FORMATS: readonly DateFormat[] = ['YYYY-MM-DD', 'DD/MM/YYYY', 'MM/DD/YYYY', 'DD.MM.YYYY'];
export const COLUMNS = ['date', 'amount', 'inflow', 'outflow', 'payee', 'description', 'externalId', 'currency', 'category'] as const;
export type Column = (typeof COLUMNS)[number];

/** A cell as written: padding and quotes cleaned, the apostrophe before formula-looking text dropped. */
export function readCell(text: string): string {
  return restoreCell(cleanCell(text));
}

/** A cell that says "nothing here": empty, '-', '—', '/'. */
export const PLACEHOLDER = /^[-–—/]*$/;

const UMLAUTS: Record<string, string | undefined> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss' };

/** A header cell for matching: lower case, umlauts as ae/oe/ue, other accents dropped, spaces collapsed. */
export function headerKey(header: string): string {
  return readCell(header)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[äöüß]/g, (c) => UMLAUTS[c] ?? c)
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/\s+/g, ' ')
    .replace(/\s*:$/, '');
}

/** '(EUR)', '(元)', '[GBP]' after a header name. */
const UNIT = String.raw`(?:\s*[([](?:[a-z]{3}|[€$£¥]|元|人民币)[)\]])?`;

/** Per column, header names from the most to the least telling; a tier applies only to columns no earlier tier took. */
export const HEADER_NAMES = [
  String.raw`date=(?:transaction|trans\.?|txn|booking|operation) date|buchungstag|buchungsdatum|date(?: de l'?operation| operation| de transaction)?|datum|fecha(?: (?:de )?operacion)?|交易日期|交易时间|记账日期|交易日|日期`,
  String.raw`date=post(?:ed|ing)? date|date posted|value date|valutadatum|wertstellung|date de valeur|fecha valor`,
  String.raw`amount=amount|transaction amount|billing amount|posted amount|betrag|umsatz|montant|importe|bedrag|金额|交易金额|发生额|debit\/credit|credit\/debit`,
  String.raw`inflow=credits?|credit amount|deposits?|paid in|money in|in|haben|eingang|gutschrift|recettes?|abonos?|ingresos?|收入|收入金额|存入|存入金额|贷方金额|贷方发生额|(?:交易|记账)金额\(收入\)`,
  String.raw`outflow=debits?|debit amount|withdrawals?|paid out|money out|out|soll|ausgang|belastung|depenses?|cargos?|gastos?|支出|支出金额|支取|支取金额|借方金额|借方发生额|(?:交易|记账)金额\(支出\)`,
  String.raw`externalId=transaction (?:id|number|reference)|reference (?:number|no\.?)|ref\.? no\.?|id|fitid|transaktions-?id|transaktionsnummer|numero de transaction|transactie ?id|流水号|交易流水号|交易单号|交易号|凭证号`,
  String.raw`currency=currency|ccy|curr|billing currency|transaction currency|waehrung|devise|monnaie|moneda|divisa|munt|币种|货币|交易币种|记账币种|币别`,
  String.raw`category=categor(?:y|ie|ia)|kategorie|分类|类别|交易分类`,
  String.raw`payee=payee|payee name|merchant|merchant name|beneficiary|counterparty|counterparty name|recipient`,
  String.raw`payee=(?:auftraggeber ?\/ ?)?(?:empfaenger|beguenstigter|zahlungsempfaenger)(?: ?\/ ?zahlungspflichtiger)?|(?:name )?zahlungsbeteiligter|beneficiaire|tiers|beneficiario|ordenante|tegenpartij|naam tegenpartij|naam ?\/ ?omschrijving|name|naam|对方|交易对方|对方户名|对方名称|对方账户名|商户名称|收\/付款方`,
  String.raw`description=memo|verwendungszweck|notes?|remarks?|details|narrative|mitteilung|communication|commentaire|observaciones|mededelingen|摘要|备注|附言|用途|交易摘要|交易详情`,
  // A "Description" column is the payee when the file has a memo column beside it (Chase:
  // Description, Memo), else it is the description (see guessMapping).
  String.raw`payee=description|merchant\/description|libelle|concepto|omschrijving|beschreibung`,
  String.raw`description=description|transaction description|buchungstext|libelle|concepto|omschrijving|beschreibung`,
  String.raw`category=transaction type|type|交易类型`,
].map((tier): [Column, RegExp] => {
  const at = tier.indexOf('=');
  const column = COLUMNS.find((c) => c === tier.slice(0, at));
  if (column === undefined) throw new Error(`No such column: ${tier}`);
  return [column, new RegExp(`^(?:${tier.slice(at + 1)})${UNIT}$`)];
});

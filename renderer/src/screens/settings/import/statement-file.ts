/**
 * The statement file on its way to the server: its format guessed from the name and the first
 * bytes, and its bytes as base64 — in one piece when small, else sent ahead in parts
 * (import.upload) and named by the upload's id.
 */

export const STATEMENT_FORMATS = ['alipay', 'wechat', 'ofx', 'qif', 'camt', 'csv'] as const;
export type StatementFormat = (typeof STATEMENT_FORMATS)[number];

/** Files up to this size go inline (`content`); larger ones are uploaded in parts first. */
export const INLINE_LIMIT = 700 * 1024;
/** Bytes per uploaded part: 600 KiB is 819,200 base64 characters, under the 1,000,000 a part may have. */
export const PART_BYTES = 600 * 1024;

const decoder = (label: string): TextDecoder | null => {
  try {
    return new TextDecoder(label);
  } catch {
    return null;
  }
};

/** The first bytes as text, read as UTF-8 and, where the browser can, as GBK (Alipay's Windows export). */
function headTexts(head: Uint8Array): [string, ...string[]] {
  const utf8 = new TextDecoder('utf-8').decode(head);
  const gbk = decoder('gbk');
  return gbk ? [utf8, gbk.decode(head)] : [utf8];
}

/** A line of the head that is the header row of Alipay's or WeChat Pay's bill (its column names, not words in its rows). */
const ALIPAY_HEADER = /^[^\n]*收\/支[^\n]*交易状态[^\n]*$/m;
const WECHAT_HEADER = /^[^\n]*收\/支[^\n]*当前状态[^\n]*$/m;

/**
 * The wizard's first guess while the server reads the file (import.describe decides): the format
 * by the file's extension, and for a CSV (or a file of unknown kind) by its header row (Alipay's
 * and WeChat Pay's column names, never a merchant named in a row: a bank's CSV names 支付宝 too);
 * OFX, QIF and CAMT files are recognised by their opening when they are named otherwise.
 */
export function guessFormat(name: string, head: Uint8Array): StatementFormat {
  const extension = /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
  if (extension === 'ofx' || extension === 'qfx') return 'ofx';
  if (extension === 'qif') return 'qif';
  if (extension === 'xml') return 'camt';
  if (extension === 'xlsx') return 'wechat';
  const texts = headTexts(head);
  if (texts.some((text) => ALIPAY_HEADER.test(text))) return 'alipay';
  if (texts.some((text) => WECHAT_HEADER.test(text))) return 'wechat';
  const text = texts[0].trimStart();
  if (/^OFXHEADER|<OFX>/i.test(text)) return 'ofx';
  if (/^!(Type|Account|Option)/i.test(text)) return 'qif';
  if (/camt\.053/i.test(text)) return 'camt';
  return 'csv';
}

/** Bytes as base64, in slices (String.fromCharCode takes a limited number of arguments). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  const slice = 0x8000;
  for (let i = 0; i < bytes.length; i += slice) binary += String.fromCharCode(...bytes.subarray(i, i + slice));
  return btoa(binary);
}

/** How many parts an upload of this size takes. */
export function partsOf(size: number): number {
  return Math.max(1, Math.ceil(size / PART_BYTES));
}

/** The browser's IANA time zones (the current one first), for the time zone select. */
export function timeZones(current: string): string[] {
  let zones: string[];
  try {
    zones = Intl.supportedValuesOf('timeZone');
  } catch {
    zones = [];
  }
  return [current, ...zones.filter((zone) => zone !== current)];
}

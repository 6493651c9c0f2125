/**
 * Key layout of the LevelDB RxStorage.
 *
 * Every key is a JS string encoded as UTF-16BE bytes. RxDB compares index strings with
 * JavaScript's `<` (UTF-16 code-unit order) and uses U+FFFF as "the largest value". LevelDB
 * compares raw bytes; with UTF-8 keys, characters outside the BMP (emoji in a category name)
 * would sort *above* U+FFFF and fall out of open-ended ranges. UTF-16BE bytes sort exactly
 * like UTF-16 code units, so a LevelDB range is the same range RxDB means.
 *
 *   r␁<db>␁<collection>␁<schemaVersion>␁d␁<docId>            → document JSON
 *   r␁<db>␁<collection>␁<schemaVersion>␁i␁<index>␁<indexStr>  → docId
 *
 * Names of RxDB databases and collections never contain U+0001, so prefixes cannot collide.
 * Keys of the local (non-RxDB) store live in a separate `abstract-level` sublevel whose
 * first byte is `!` (0x21); every key above starts with byte 0x00 ('r' is U+0072).
 */
const SEP = '\u0001';

export function encodeKey(key: string): Buffer {
  return Buffer.from(key, 'utf16le').swap16();
}

export function collectionPrefix(databaseName: string, collectionName: string, schemaVersion: number): string {
  return `r${SEP}${databaseName}${SEP}${collectionName}${SEP}${schemaVersion}${SEP}`;
}

export function docPrefix(collection: string): string {
  return `${collection}d${SEP}`;
}

export function indexPrefix(collection: string, indexFields: readonly string[]): string {
  return `${collection}i${SEP}${indexFields.join(',')}${SEP}`;
}

/** Every prefix above ends with SEP; the same prefix ending in SEP+1 is greater than all of its keys. */
export function prefixEnd(prefix: string): string {
  if (!prefix.endsWith(SEP)) throw new Error('prefix must end with the separator');
  return prefix.slice(0, -1) + '\u0002';
}

/**
 * The records of a ZIP file, for tests that craft archives a ZIP library would refuse to write
 * (entries that lie about their size, hidden or listed twice). Every entry is deflated (method 8).
 */

export interface ZipEntryFacts {
  name: string;
  /** CRC-32 of the unpacked bytes. */
  crc: number;
  /** Bytes stored (deflated). */
  stored: number;
  /** The unpacked size the records declare (a bomb may lie about it). */
  declared: number;
}

/** A local file header followed by the entry's name (its deflated data comes next). */
export function localRecord(entry: ZipEntryFacts): Buffer {
  const name = Buffer.from(entry.name);
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(8, 8);
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(entry.stored, 18);
  header.writeUInt32LE(entry.declared, 22);
  header.writeUInt16LE(name.length, 26);
  return Buffer.concat([header, name]);
}

/** A central directory record with the entry's name, pointing at its local header at `offset`. */
export function centralRecord(entry: ZipEntryFacts, offset: number): Buffer {
  const name = Buffer.from(entry.name);
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(8, 10);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.stored, 20);
  header.writeUInt32LE(entry.declared, 24);
  header.writeUInt16LE(name.length, 28);
  header.writeUInt32LE(offset, 42);
  return Buffer.concat([header, name]);
}

/** The end of central directory record: `listed` entries in `directory` bytes starting at `directoryAt`. */
export function endRecord(listed: number, directory: number, directoryAt: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(listed, 8);
  end.writeUInt16LE(listed, 10);
  end.writeUInt32LE(directory, 12);
  end.writeUInt32LE(directoryAt, 16);
  return end;
}

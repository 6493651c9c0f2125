import { describe, expect, it } from 'vitest';
import { splitCsv } from './split-csv';

describe('splitCsv', () => {
  const header = 'date,amount,description';
  const rows = Array.from({ length: 10 }, (_, i) => `2024-01-${String(i + 1).padStart(2, '0')},${i + 1},row ${i + 1}`);

  it('keeps a small file in one part', () => {
    expect(splitCsv([header, ...rows].join('\r\n'))).toEqual([{ csv: [header, ...rows].join('\n'), firstLine: 2 }]);
  });

  it('cuts at row boundaries, repeats the header and says where each part starts in the file', () => {
    const [firstRow = ''] = rows;
    const parts = splitCsv([header, ...rows].join('\n'), header.length + 3 * (firstRow.length + 1));
    expect(parts.map((p) => p.firstLine)).toEqual([2, 5, 8, 11]);
    for (const part of parts) expect(part.csv.split('\n')[0]).toBe(header);
    expect(parts.flatMap((p) => p.csv.split('\n').slice(1))).toEqual(rows);
  });

  it('never cuts inside a quoted field that spans lines', () => {
    const quoted = ['2024-02-01,5,"first line', 'second line"', '2024-02-02,6,plain'];
    const parts = splitCsv([header, ...quoted].join('\n'), header.length + 20);
    expect(parts.map((p) => p.csv.split('\n').slice(1))).toEqual([quoted.slice(0, 2), quoted.slice(2)]);
  });

  it('gives no part for a file with only a header', () => {
    expect(splitCsv(`${header}\n\n`)).toEqual([]);
  });
});

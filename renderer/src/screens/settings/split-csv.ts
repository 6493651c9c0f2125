/** Splits a CSV at row boundaries into parts under the API's 1 MiB body limit, each with the header. */
export function splitCsv(text: string, maxChars = 700_000): { csv: string; firstLine: number }[] {
  const [header = '', ...rows] = text.replace(/\r\n/g, '\n').split('\n');
  const parts: { csv: string; firstLine: number }[] = [];
  let current: string[] = [];
  let size = header.length;
  let firstLine = 2;
  let inQuotes = false;
  let rowStart = true;
  for (const [index, line] of rows.entries()) {
    // a quoted field may span lines: only cut where no quote is open
    if (rowStart && size + line.length + 1 > maxChars && current.length > 0 && !inQuotes) {
      parts.push({ csv: [header, ...current].join('\n'), firstLine });
      firstLine = index + 2; // 1-based, after the header
      current = [];
      size = header.length;
    }
    current.push(line);
    size += line.length + 1;
    for (const ch of line) if (ch === '"') inQuotes = !inQuotes;
    rowStart = !inQuotes;
  }
  if (current.some((l) => l.trim() !== '')) parts.push({ csv: [header, ...current].join('\n'), firstLine });
  return parts;
}

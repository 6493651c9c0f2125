import { crc32, deflateSync } from 'node:zlib';
import type { TestServer } from './test-server';

export function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid 1×1 RGB PNG (69 bytes). */
export function tinyPng(): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(1, 0);
  ihdr.writeUInt32BE(1, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(Buffer.from([0, 255, 0, 0]))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

export function tinyJpeg(): Buffer {
  return Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]);
}

export function tinyPdf(): Buffer {
  return Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n', 'latin1');
}

export const HTML_PAGE = Buffer.from('<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>\n');

/** file.upload then PUT the bytes; returns both answers. */
export async function uploadFile(t: TestServer, token: string, bytes: Buffer, options: { fileName?: string; fileType?: string; category?: string; fileSize?: number } = {}) {
  const ticket = await t.api(
    'file.upload',
    {
      fileName: options.fileName ?? 'receipt.png',
      fileType: options.fileType ?? 'image/png',
      fileSize: options.fileSize ?? bytes.length,
      ...(options.category ? { category: options.category } : {}),
    },
    token,
  );
  if (ticket.code !== 200) return { ticket, put: null, putBody: null };
  const put = await putBytes(t.url + (ticket.data.uploadUrl as string), bytes);
  const putBody = (await put.json()) as { code: number; message: string; data: any };
  return { ticket, put, putBody };
}

/** PUT raw bytes to an (absolute) upload URL. */
export function putBytes(url: string, bytes: Uint8Array, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: 'PUT', body: new Uint8Array(bytes), headers });
}

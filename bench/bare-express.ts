/**
 * The baseline of the HTTP figures: a bare Express 5 app in its own process, doing the least a
 * server can do for the same requests — parse the JSON body of POST /api and answer a small
 * envelope; answer GET /send/:key with a ServerChan-shaped body. No auth, no validation, no
 * storage. Prints its URL on the first stdout line.
 */
import express from 'express';
import type { AddressInfo } from 'node:net';

const app = express();
app.disable('x-powered-by');
app.post('/api', express.json({ limit: '1mb' }), (req, res) => {
  res.json({ code: 200, message: 'ok', data: { action: (req.body as { action?: string } | undefined)?.action ?? null, list: [], total: 0 } });
});
app.get('/send/:key', (req, res) => {
  res.json({ code: 0, message: 'Delivered.', data: { pushId: 'x', total: 1, success: 1, failed: 0, results: [] } });
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

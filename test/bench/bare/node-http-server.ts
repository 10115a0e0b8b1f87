// The node:http reference: the smallest node:http handler answering a JSON body. Run as a child process.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BARE_BODY } from './body.js';

const length = String(Buffer.byteLength(BARE_BODY));
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
  res.end(BARE_BODY);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`LISTENING http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.once('SIGTERM', () => process.exit(0));

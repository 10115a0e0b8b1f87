// The machine's ceiling: the smallest uWebSockets.js handler answering a JSON body. Run as a child process.
import uWS from 'uWebSockets.js';
import { BARE_BODY } from './body.js';

const app = uWS.App().any('/*', (res) => {
  res.writeHeader('content-type', 'application/json').end(BARE_BODY);
});
app.listen('127.0.0.1', 0, (socket) => {
  if (!socket) {
    process.stderr.write('uWS could not listen\n');
    process.exit(1);
  }
  process.stdout.write(`LISTENING http://127.0.0.1:${uWS.us_socket_local_port(socket)}\n`);
});
process.once('SIGTERM', () => process.exit(0));

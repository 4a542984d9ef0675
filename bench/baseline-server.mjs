// The baseline of the bench: a bare node:http server answering every request with one fixed JSON
// body (the bench passes the GET one response, so the bytes on the wire match).
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import process from 'node:process';

const body = readFileSync(process.env.BASELINE_BODY_FILE ?? '/dev/null');
const port = Number(process.env.PORT ?? 0);

const server = createServer((_request, response) => {
  response.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
  });
  response.end(body);
});
server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1');

for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
  process.on(signal, () => server.close(() => process.exit(0)).closeAllConnections());
}

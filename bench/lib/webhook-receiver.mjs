// The webhook receiver of put-update-webhook, run as a child of the bench (startWebhookReceiver):
// in the bench's own process every delivery would take event-loop time from the load generator.
// It answers 204 to everything, tells its port once listening, and its count when asked.
import { createServer } from 'node:http';
import process from 'node:process';

let received = 0;
const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    received++;
    response.writeHead(204).end();
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ port: typeof address === 'object' && address ? address.port : 0 });
});
process.on('message', () => process.send?.({ received }));
// The bench gone (the IPC channel closed): nothing left to receive for.
process.on('disconnect', () => process.exit(0));

// The smoke tests' webhook receiver, run inside the cluster (namespace crm-smoke) on the Node base image: answers
// 200 to every POST and records it (path, headers, raw body); GET /received lists them, GET /healthz answers ok.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';

const received = [];
createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/received') {
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(received));
    return;
  }
  if (request.method === 'GET') {
    response.writeHead(request.url === '/healthz' ? 200 : 404).end();
    return;
  }
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    received.push({ path: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
    response.writeHead(200).end();
  });
}).listen(8080, '0.0.0.0');

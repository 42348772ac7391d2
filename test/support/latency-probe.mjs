// Sends GET requests to a URL one after another until stdin closes, then prints the latencies
// (ms) as JSON. A process of its own, so that the test process's work (sending 50 MB) does not
// count in what it measures: only the server's answers do.
import http from 'node:http';
import process from 'node:process';
import { performance } from 'node:perf_hooks';

const url = process.argv[2];
const latencies = [];
let running = true;
process.stdin.on('end', () => (running = false));
process.stdin.resume();
process.stdout.write('ready\n');
const get = () =>
  new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`probe: ${res.statusCode}`))));
      })
      .on('error', reject);
  });
while (running) {
  const started = performance.now();
  await get();
  latencies.push(performance.now() - started);
}
process.stdout.write(`${JSON.stringify(latencies)}\n`);

// A static file server for dist/ on 127.0.0.1 (random port), for the browser
// tests. Serves .wasm with its MIME type so streaming instantiation works.
import crypto from 'node:crypto';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.wasm': 'application/wasm', '.json': 'application/json', '.gz': 'application/gzip',
  '.svg': 'image/svg+xml', '.png': 'image/png',
};

/** `dir`: a directory, or a function returning the one to serve now (a new
 *  deploy at the same address).
 *  `cors`: allow any origin to read (a dataset or tokenizer on another site).
 *  `isolate`: send the two headers that make the page cross-origin isolated
 *  (threads for the model in the tab), as a host that can set headers does.
 *  `prefix`: serve `dir` under this path only ("/sub/repoqa/"), as a host
 *  serving a project page would; anything else is 404.
 *  Like many static hosts, each file carries an ETag and `Cache-Control:
 *  no-cache` (the browser may store it, and asks again before reusing it:
 *  304 when unchanged).
 *  The result's `served` lists each file sent, `{ path, file, status,
 *  bytes, encoding }` (`file` the path on disk; a 304 sends no bytes): what a visit
 *  cost the host. */
export function serveDir(root, { cors = false, prefix = '/', compress = false, isolate = false } = {}) {
  const served = [];
  const server = http.createServer((req, res) => {
    const dir = typeof root === 'function' ? root() : root;
    const url = new URL(req.url, 'http://x');
    if (!url.pathname.startsWith(prefix)) { res.writeHead(404); return res.end('not found'); }
    let p = path.normalize(decodeURIComponent('/' + url.pathname.slice(prefix.length))).replace(/^(\.\.[/\\])+/, '');
    let file = path.join(dir, p);
    if (!file.startsWith(dir)) { res.writeHead(403); return res.end(); }
    if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
    // `compress`: as a host with precompressed copies sends them (brotli
    // first, then gzip, whichever the browser accepts and the build has).
    let encoding = null;
    if (compress) {
      const accepts = String(req.headers['accept-encoding'] || '');
      for (const [name, ext] of [['br', '.br'], ['gzip', '.gz']]) {
        if (new RegExp(`\\b${name}\\b`).test(accepts) && fs.existsSync(file + ext)) { encoding = name; break; }
      }
    }
    fs.readFile(encoding ? file + (encoding === 'br' ? '.br' : '.gz') : file, (err, data) => {
      if (err) { res.writeHead(404); return res.end('not found'); }
      const etag = `"${crypto.createHash('sha1').update(data).digest('hex')}"`;
      const headers = { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream', etag, 'cache-control': 'no-cache' };
      if (cors) headers['access-control-allow-origin'] = '*';
      if (isolate) {
        headers['cross-origin-opener-policy'] = 'same-origin';
        headers['cross-origin-embedder-policy'] = 'require-corp';
      }
      if (encoding) { headers['content-encoding'] = encoding; headers.vary = 'accept-encoding'; }
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, headers);
        served.push({ path: url.pathname, file, status: 304, bytes: 0 });
        return res.end();
      }
      // As a static host sends a file: its length (the packed one when packed).
      headers['content-length'] = data.length;
      res.writeHead(200, headers);
      served.push({ path: url.pathname, file, status: 200, bytes: data.length, encoding });
      res.end(data);
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve({ server, served, url: `http://127.0.0.1:${server.address().port}${prefix}` }));
  });
}

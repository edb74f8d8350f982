// ZongJi (@vlasky/zongji, an ES module) catch-up over the benchmark's binlog
// range: every row change written as one JSON line (to stdout, /dev/null in
// the timed runs), stopping once the expected number of row changes was
// seen (ZongJi has no "until the end of the binlog" mode).
//   node zongji_catchup.mjs ZONGJI_INSTALL_DIR HOST PORT USER PASSWORD FILE EXPECTED_ROWS SERVER_ID
import { pathToFileURL } from 'node:url';

const [dir, host, port, user, password, filename, expected, serverId] = process.argv.slice(2);
const { default: ZongJi } = await import(pathToFileURL(`${dir}/node_modules/@vlasky/zongji/index.js`).href);
const want = Number(expected);
const zongji = new ZongJi({ host, port: Number(port), user, password });
let rows = 0;
let pending = '';
const flush = () => { if (pending) { process.stdout.write(pending); pending = ''; } };
zongji.on('binlog', (evt) => {
  const name = evt.getEventName();
  if (name !== 'writerows' && name !== 'updaterows' && name !== 'deleterows') return;
  for (const row of evt.rows) {
    pending += JSON.stringify({ op: name, table: evt.tableMap[evt.tableId].tableName, row }) + '\n';
    ++rows;
  }
  if (pending.length > 1 << 20) flush();
  if (rows >= want) {
    flush();
    process.stderr.write(`rows ${rows}\n`);
    zongji.stop();
    process.stdout.write('', () => process.exit(0));
  }
});
zongji.on('error', (err) => { process.stderr.write(`zongji error: ${err.message}\n`); process.exit(1); });
zongji.start({ filename, position: 4, serverId: Number(serverId), includeEvents: ['tablemap', 'writerows', 'updaterows', 'deleterows'] });

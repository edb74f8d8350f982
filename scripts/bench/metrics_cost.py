#!/usr/bin/env python3
"""What --metrics costs (issue 27), driven by run_metrics_cost.sh.

Writes ROWS row changes (transactions of 1000 inserts) into a private
MariaDB, then times catch-ups of `sluice-mariadb cdc --until-end` (stdout
to /dev/null) and `sluice-pipeline run --until-end` (into a fresh sink
table each run) with and without `--metrics 127.0.0.1:0` plus a scrape of
/metrics every second, interleaved. Prints a Markdown report."""
import argparse
import os
import re
import resource
import statistics
import subprocess
import threading
import time
import urllib.request


def read_env(path):
    env = {}
    for line in open(path):
        line = line.strip()
        if line and not line.startswith('#') and '=' in line:
            k, v = line.split('=', 1)
            env[k] = v.strip().strip('"').strip("'")
    return env


def mariadb(env, sql):
    subprocess.run(['mariadb', '--no-defaults', '-h', '127.0.0.1', '-P', env['SLUICE_MARIADB_PORT'],
                    '-u', env['SLUICE_MARIADB_ADMIN_USER'], '-p' + env['SLUICE_MARIADB_ADMIN_PASSWORD'], '-N', '-B'],
                   input=sql.encode(), check=True, stdout=subprocess.PIPE)


def mariadb_value(env, sql):
    return subprocess.run(['mariadb', '--no-defaults', '-h', '127.0.0.1', '-P', env['SLUICE_MARIADB_PORT'],
                           '-u', env['SLUICE_MARIADB_ADMIN_USER'], '-p' + env['SLUICE_MARIADB_ADMIN_PASSWORD'], '-N',
                           '-B', '-e', sql], check=True, stdout=subprocess.PIPE).stdout.decode().strip()


def timed(cmd, metrics, stderr_path):
    """Runs cmd; with metrics, scrapes /metrics every second. (wall s, cpu s, scrapes)."""
    scrapes = [0]
    with open(stderr_path, 'w') as err, open(os.devnull, 'w') as null:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=null, stderr=err)
        stop = threading.Event()

        def scrape():
            port = None
            while not stop.is_set() and port is None:
                m = re.search(r'metrics: http://127\.0\.0\.1:(\d+)/', open(stderr_path).read())
                if m:
                    port = m.group(1)
                else:
                    time.sleep(0.01)
            while not stop.wait(1.0):
                try:
                    urllib.request.urlopen('http://127.0.0.1:%s/metrics' % port, timeout=5).read()
                    scrapes[0] += 1
                except OSError:
                    pass
        t = threading.Thread(target=scrape)
        if metrics:
            t.start()
        _, status, usage = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        stop.set()
        if metrics:
            t.join()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit('%s failed: %s' % (' '.join(cmd), open(stderr_path).read()))
    return wall, usage.ru_utime + usage.ru_stime, scrapes[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cdc', required=True)
    ap.add_argument('--pipeline', required=True)
    ap.add_argument('--env', required=True)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--rows', type=int, default=1000000)
    ap.add_argument('--only', choices=['cdc', 'pipeline'])
    a = ap.parse_args()
    env = read_env(a.env)
    mariadb(env, 'CREATE DATABASE IF NOT EXISTS bench; DROP TABLE IF EXISTS bench.metrics_cost; '
                 'CREATE TABLE bench.metrics_cost (id INT PRIMARY KEY, k VARCHAR(16), t BIGINT, v DOUBLE);')
    start = mariadb_value(env, 'SELECT @@global.gtid_binlog_pos')
    per = 1000
    for chunk in range(0, a.rows // per, 100):
        sql = []
        for n in range(chunk, min(chunk + 100, a.rows // per)):
            values = ','.join('(%d,\'k%d\',%d,%d.5)' % (n * per + i, (n * per + i) % 1000, (n * per + i) // 80, i % 7)
                              for i in range(per))
            sql.append('INSERT INTO bench.metrics_cost VALUES %s;' % values)
        mariadb(env, '\n'.join(sql))
    source = 'mariadb://%s:%s@127.0.0.1:%s/?ssl-mode=disable' % (
        env['SLUICE_MARIADB_ADMIN_USER'], env['SLUICE_MARIADB_ADMIN_PASSWORD'], env['SLUICE_MARIADB_PORT'])
    sink = env['SLUICE_PG_URL']
    tmp = os.path.join(os.path.dirname(a.env), 'metrics-cost')
    os.makedirs(tmp, exist_ok=True)

    def cdc_cmd(on, i):
        c = [a.cdc, 'cdc', source, '--from-gtid', start, '--until-end', '--tables', 'bench.metrics_cost']
        return c + (['--metrics', '127.0.0.1:0'] if on else [])

    def pipeline_cmd(on, i):
        name = 'cost_%s_%s' % ('on' if on else 'off', 'warm' if i < 0 else str(i))
        subprocess.run(['psql', sink, '-X', '-q', '-c',
                        'drop table if exists "%s", "%s_late", "%s_rejected"' % (name, name, name)], check=True,
                       stderr=subprocess.DEVNULL)
        subprocess.run(['psql', sink, '-X', '-q', '-c',
                        "create table if not exists sluice_pipeline_state (name text primary key, gtid text not null, "
                        "checkpoint bytea, settings text not null); delete from sluice_pipeline_state where name = '%s'"
                        % name], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        c = [a.pipeline, 'run', '--source', source, '--table', 'bench.metrics_cost', '--id', 'id', '--key', 'k',
             '--ts', 't', '--value', 'v', '--sink', sink, '--sink-table', name, '--from-gtid', start, '--until-end',
             '--quiet']
        return c + (['--metrics', '127.0.0.1:0'] if on else [])

    results = {}
    tools = [('cdc', 'sluice-mariadb cdc (stdout)', cdc_cmd), ('pipeline', 'sluice-pipeline run', pipeline_cmd)]
    for key, tool, make in tools:
        if a.only and a.only != key:
            continue
        timed(make(False, -1), False, os.path.join(tmp, 'warm.log'))  # warm the server's caches
        r = {False: [], True: []}
        for i in range(a.runs):
            for on in (False, True):
                r[on].append(timed(make(on, i), on, os.path.join(tmp, 'run.log')))
        results[tool] = r

    load = open('/proc/loadavg').read().split()[:3]
    print('# What `--metrics` costs (benchmark report)\n')
    print('Measured with `scripts/bench/run_metrics_cost.sh build/release --runs %d --rows %d%s` on %s UTC '
          '(load average at the end %s; the machine has 2 cores, shared with other engineers\' builds and tests).\n'
          % (a.runs, a.rows, ' --only ' + a.only if a.only else '', time.strftime('%Y-%m-%d %H:%M', time.gmtime()),
             ', '.join(load)))
    print('Catch-up of %d row changes (transactions of %d inserts) from a private MariaDB; the pipeline into a '
          'private PostgreSQL (a fresh sink table per run). "on": `--metrics 127.0.0.1:0` and a GET of /metrics '
          'every second; "off": neither. Runs interleaved off, on, off, on, ...; medians of %d runs each. CPU is the '
          'process\'s user + system time (wait4).\n' % (a.rows, per, a.runs))
    print('| | wall off (s) | wall on (s) | wall cost | CPU off (s) | CPU on (s) | CPU cost | scrapes per run (on) |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for tool, r in results.items():
        w0 = statistics.median(x[0] for x in r[False])
        w1 = statistics.median(x[0] for x in r[True])
        c0 = statistics.median(x[1] for x in r[False])
        c1 = statistics.median(x[1] for x in r[True])
        sc = statistics.median(x[2] for x in r[True])
        print('| %s | %.3f | %.3f | %+.1f%% | %.3f | %.3f | %+.1f%% | %d |' % (
            tool, w0, w1, (w1 / w0 - 1) * 100, c0, c1, (c1 / c0 - 1) * 100, sc))
    print('\nAll runs (wall s / CPU s):\n')
    for tool, r in results.items():
        for on in (False, True):
            print('- %s, %s: %s' % (tool, 'on' if on else 'off',
                                    ', '.join('%.3f/%.3f' % (x[0], x[1]) for x in r[on])))


if __name__ == '__main__':
    main()

// hail's HTML report: builds the charts from the data hail embedded (#hail-data) with uPlot.
// Every chart is drawn from per-window aggregates (never per-request points). When done, the body
// carries data-charts (how many were drawn) and data-ready, which the tests read in a browser.
(function() {
'use strict';
const data = JSON.parse(document.getElementById('hail-data').textContent);
document.getElementById('text-report').textContent = data.report;
const main = document.getElementById('charts');
const width = () => Math.max(320, Math.min(1130, main.clientWidth - 26));
const palette =
    ['#2f6fdf', '#e07b24', '#2ca02c', '#d62728', '#8c56bf', '#7f7f7f', '#17becf', '#bcbd22'];
let drawn = 0;
// The end of drawing: how many charts, and how long the page took from navigation to here (ms),
// which the tests read (a day of windows must open in a couple of seconds).
const done = () => {
  document.body.dataset.charts = String(drawn);
  document.body.dataset.elapsed = String(Math.round(performance.now()));
  document.body.dataset.theme =
      matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  document.body.dataset.ready = '1';
};

// The run's facts beside its title: hail's version, when the load started, and the machines it
// came from (a merge of shards lists each host), so a page read months later still says where.
(function runInfo() {
  const rows = [['hail', data.version]];
  if (data.start_unix_s > 0) {
    rows.push([
      'started',
      new Date(data.start_unix_s * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')
    ]);
  }
  const machines = data.machines || [];
  machines.forEach((m, i) => rows.push([
    machines.length > 1 ? 'machine ' + (i + 1) : 'machine',
    [m.hostname, m.cpu_model, m.cpus ? m.cpus + ' CPUs' : '', m.kernel].filter((v) => v).join(', ')
  ]));
  const table = document.createElement('table');
  table.id = 'run-info';
  for (const [k, v] of rows) {
    const tr = table.insertRow();
    const th = document.createElement('th');
    th.textContent = k;
    tr.appendChild(th);
    tr.insertCell().textContent = v;
  }
  document.querySelector('header').appendChild(table);
})();

function section(id, title, note, className) {
  const div = document.createElement('div');
  div.className = className || 'chart';
  div.id = id;
  const h = document.createElement('h2');
  h.textContent = title;
  div.appendChild(h);
  if (note) {
    const p = document.createElement('p');
    p.className = 'note';
    p.textContent = note;
    div.appendChild(p);
  }
  main.appendChild(div);
  return div;
}

// The theme's colours for what uPlot paints on its canvas (axes, ticks, grid), which CSS cannot
// reach: read once, so that the dark theme (prefers-color-scheme) gets light axes.
const themed = (() => {
  const css = getComputedStyle(document.documentElement);
  const fg = css.getPropertyValue('--fg').trim() || '#1d2430';
  const grid = css.getPropertyValue('--line').trim() || '#d9dee6';
  return (axes) => (axes || []).map((a) => Object.assign({stroke: fg}, a, {
    grid: Object.assign({stroke: grid, width: 1}, a.grid),
    ticks: Object.assign({stroke: grid, width: 1}, a.ticks)
  }));
})();
const charts = [];

function plot(id, title, note, opts, columns) {
  const div = section(id, title, note);
  opts.width = width();
  opts.height = opts.height || 260;
  opts.axes = themed(opts.axes);
  const chart = new uPlot(opts, columns, div);
  charts.push(chart);
  div.dataset.points = String(columns[0].length);
  drawn++;
  return chart;
}

// Charts are canvases of a fixed size: fit them to the window when it changes, and to the paper
// (about 680 CSS pixels on A4 or Letter) while printing.
const fit = (w) => charts.forEach((c) => c.setSize({width: w, height: c.height}));
window.addEventListener('resize', () => fit(width()));
window.addEventListener('beforeprint', () => fit(680));
window.addEventListener('afterprint', () => fit(width()));

// A line that breaks at missing values (a window with no response has no latency).
const line = (label, color, scale, extra) =>
    Object.assign({label: label, stroke: color, width: 1.5, scale: scale, spanGaps: false}, extra);
const ms = (u, v) => v == null ? '-' : v < 1 ? (v * 1000).toFixed(1) + ' us' : v.toFixed(2) + ' ms';
const timeAxis = {
  label: 'seconds since start',
  values: (u, ticks) => ticks.map((t) => t + '')
};
// --slo thresholds: each one that bounds a chart is a dashed horizontal line at its limit, named by
// its expression, green when it passed, red when it failed, grey when not judged (hail search).
const thresholds = data.thresholds || [];
const verdictColor = (th) => th.ok === true ? '#2ca02c' : th.ok === false ? '#d62728' : '#7f7f7f';
const verdictText = (th) => th.ok === null ? '' :
    !th.applicable                         ? ' (n/a)' :
    th.ok                                  ? ' (passed)' :
                                             ' (failed)';
// Adds the lines of the thresholds drawn on `charts` (scale of each: scaleOf) to a chart's series
// and columns, over the x values `x`; returns their expressions (the chart's data-slo).
function sloLines(charts, scaleOf, x, series, cols) {
  const drawnExprs = [];
  for (const th of thresholds) {
    if (!charts.includes(th.chart)) continue;
    const scale = scaleOf(th.chart);
    const extra = {dash: [8, 5], width: 2, points: {show: false}};
    if (scale === 'ms') extra.value = ms;
    series.push(line('limit ' + th.expr + verdictText(th), verdictColor(th), scale, extra));
    cols.push(x.map(() => th.limit));
    drawnExprs.push(th.expr);
  }
  return drawnExprs;
}
const markSlo = (id, exprs) => {
  if (exprs.length > 0) document.getElementById(id).dataset.slo = exprs.join('\n');
};

// The thresholds table: each threshold with what was measured and its verdict, coloured.
function thresholdsTable() {
  const judged = thresholds.filter((th) => th.ok !== null);
  if (judged.length === 0) return;
  const div = section(
      'thresholds', 'Thresholds (--slo)',
      judged.every((th) => th.ok) ? 'every threshold passed' : 'at least one threshold failed',
      'chart thresholds');
  const table = document.createElement('table');
  table.className = 'verdicts';
  const head = table.createTHead().insertRow();
  for (const h of ['threshold', 'metric', 'measured', 'verdict', '']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.appendChild(th);
  }
  const body = table.createTBody();
  for (const th of judged) {
    const tr = body.insertRow();
    tr.className = th.ok ? 'pass' : 'fail';
    tr.insertCell().textContent = th.expr;
    tr.insertCell().textContent = th.metric;
    tr.insertCell().textContent = th.measured || '-';
    tr.insertCell().textContent = !th.applicable ? 'n/a' : th.ok ? 'PASS' : 'FAIL';
    tr.insertCell().textContent = th.detail;
  }
  div.appendChild(table);
}

// Percentile axes (x = 1/(1-p), log): ticks at 0 %, 90 %, 99 % ... 99.999 %.
const spectrumAxis = {
  label: 'percentile',
  splits: () => [1, 10, 100, 1e3, 1e4, 1e5],
  values: (u, ticks) => ticks.map(
      (v) => ['0%', '90%', '99%', '99.9%', '99.99%', '99.999%'][Math.round(Math.log10(v))])
};
// hail compare: the runs' spectra overlaid, and the shift plot.
if (data.kind === 'compare') {
  const sp = data.spectrum;
  const x = sp.percentiles.map((p) => 1 / (1 - Math.min(p, 99.9999) / 100));
  const blues = ['#2f6fdf', '#5b8fe8', '#86aef0', '#aecaf6', '#1f4fa8'];
  const oranges = ['#e07b24', '#ea9a56', '#f2b985', '#f7d2b0', '#b55e12'];
  let nb = 0;
  let nc = 0;
  plot(
      'chart-spectrum', 'Percentile spectra: base (blue) and candidate (orange)',
      'each run\'s latency under which p of its requests completed', {
        series: [{
                  label: 'percentile',
                  value: (u, v) => v == null ? '-' : (100 * (1 - 1 / v)).toPrecision(6) + '%'
                }]
                    .concat(sp.curves.map(
                        (c) => line(
                            c.name,
                            c.side === 'base' ? blues[nb++ % blues.length] :
                                                oranges[nc++ % oranges.length],
                            'ms', {value: ms}))),
        scales: {x: {time: false, distr: 3, range: [1, 1e5]}, ms: {distr: 3}},
        axes: [spectrumAxis, {label: 'ms', scale: 'ms'}]
      },
      [x].concat(sp.curves.map((c) => c.ms)));
  const sh = data.shift;
  if (sh.x.length > 0) {
    const tol = sh.tolerance;
    plot(
        'chart-shift', 'Change per percentile (candidate vs base)',
        'the change with its ' +
            'interval (band) and the tolerance (dashed); above 0 is slower',
        {
          series: [
            {
              label: 'percentile',
              value: (u, v) => v == null ? '-' : (100 * (1 - 1 / v)).toPrecision(4) + '%'
            },
            line('change %', palette[0], 'pct', {
              points: {show: true, size: 7},
              value: (u, v) => v == null ? '-' : v.toFixed(2) + ' %'
            }),
            line('interval high', palette[0], 'pct', {width: 0.5}),
            line('interval low', palette[0], 'pct', {width: 0.5}),
            line('+tolerance', palette[3], 'pct', {dash: [5, 4]}),
            line('-tolerance', palette[2], 'pct', {dash: [5, 4]})
          ],
          bands: [{series: [2, 3], fill: 'rgba(47,111,223,0.15)'}],
          scales: {x: {time: false, distr: 3, range: [1, 1e5]}},
          axes: [spectrumAxis, {label: 'change %', scale: 'pct'}]
        },
        [sh.x, sh.change, sh.high, sh.low, tol, tol.map((v) => -v)]);
    document.getElementById('chart-shift').dataset.verdicts = sh.verdicts.join(',');
  }
  done();
  return;
}

// hail search: the probes' knee and the answer.
if (data.kind === 'search') {
  const k = data.search;
  const mark = (want, label, color) => ({
    label: label,
    scale: 'rps',
    stroke: color,
    paths: () => null,
    points: {show: true, size: 9, fill: color, stroke: color}
  });
  const pick = (v) => k.achieved.map((a, i) => k.verdicts[i] === v ? a : null);
  const series = [
    {label: 'level (' + k.unit + ')'},
    line('achieved/s', palette[0], 'rps', {points: {show: true}}),
    line('p50', palette[1], 'ms', {value: ms}), line('p99', palette[2], 'ms', {value: ms}),
    line('p99.9', palette[3], 'ms', {value: ms}), mark('pass', 'passed', '#2ca02c'),
    mark('fail', 'failed', '#d62728'), mark('hail', 'hail-bound', '#7f7f7f')
  ];
  const cols =
      [k.target, k.achieved, k.p50, k.p99, k.p999, pick('pass'), pick('fail'), pick('hail')];
  const limits = sloLines(
      ['latency', 'throughput'], (c) => c === 'latency' ? 'ms' : 'rps', k.target, series, cols);
  plot(
      'chart-search', 'Search: throughput and latency at each level probed',
      (k.found ? 'highest level that met every threshold: ' + k.max_passing + ' ' + k.unit +
               ' (bracket ' + k.lower + ' to ' + (k.upper || '-') + ')' :
                 'no level met every threshold') +
          '; limited by ' + k.limited_by + (limits.length > 0 ? '; dashed: the thresholds' : ''),
      {
        series: series,
        scales: {x: {time: false}, ms: {distr: 3}},
        axes: [
          {label: 'level (' + k.unit + ')'}, {label: 'per second', scale: 'rps'},
          {label: 'ms', scale: 'ms', side: 1, grid: {show: false}}
        ]
      },
      cols);
  markSlo('chart-search', limits);
  document.getElementById('chart-search').dataset.verdicts = k.verdicts.join(',');
  done();
  return;
}

thresholdsTable();
const s = data.series;
const t = s.t;

if (t.length > 0) {
  // Throughput, errors by class, target.
  const cols = [t, s.rps];
  const series = [{label: 't (s)'}, line('completed/s', palette[0], 'rps')];
  let c = 1;
  for (const name of Object.keys(s.errors)) {
    cols.push(s.errors[name]);
    series.push(line(name + ' errors/s', palette[3 + (c++ % 5)], 'rps'));
  }
  if (s.target && data.rate_mode) {
    cols.push(s.target);
    series.push(line('target/s', palette[5], 'rps', {dash: [6, 4]}));
  }
  const group = s.group > 1 ? 'each point merges ' + s.group + ' windows of the ' + s.windows :
                              s.windows + ' windows';
  const rpsLimits = sloLines(['throughput'], () => 'rps', t, series, cols);
  plot(
      'chart-throughput', 'Throughput',
      group + (s.warmup_end_s > 0 ? '; warm-up until ' + s.warmup_end_s.toFixed(1) + ' s' : ''), {
        series: series,
        scales: {x: {time: false}},
        axes: [timeAxis, {label: 'per second', scale: 'rps'}]
      },
      cols);
  markSlo('chart-throughput', rpsLimits);

  // The error rate per window, when a threshold bounds it (error_rate's own definition).
  if (data.error_rate) {
    const erSeries = [{label: 't (s)'}, line('error rate %', palette[3], 'pct')];
    const erCols = [t, data.error_rate];
    const erLimits = sloLines(['error_rate'], () => 'pct', t, erSeries, erCols);
    plot(
        'chart-error-rate', 'Error rate',
        'errors and non-2xx/3xx responses over outcomes, per window', {
          height: 180,
          series: erSeries,
          scales: {x: {time: false}},
          axes: [timeAxis, {label: '%', scale: 'pct'}]
        },
        erCols);
    markSlo('chart-error-rate', erLimits);
  }

  plot(
      'chart-connections', 'Open connections', null, {
        height: 160,
        series: [{label: 't (s)'}, line('open', palette[4], 'y')],
        scales: {x: {time: false}},
        axes: [timeAxis, {label: 'connections'}]
      },
      [t, s.open]);

  // Latency percentiles over time, log scale.
  const lat = [t, s.p50, s.p90, s.p99, s.p999, s.max];
  const names = ['p50', 'p90', 'p99', 'p99.9', 'max'];
  const latSeries =
      [{label: 't (s)'}].concat(names.map((n, i) => line(n, palette[i], 'ms', {value: ms})));
  const latLimits = sloLines(['latency'], () => 'ms', t, latSeries, lat);
  plot(
      'chart-latency', 'Latency over time' + (data.rate_mode ? ' (corrected)' : ''),
      'per window; log scale; max is the slowest request of each point, never smoothed' +
          (latLimits.length > 0 ? '; dashed: the thresholds' : ''),
      {
        series: latSeries,
        scales: {x: {time: false}, ms: {distr: 3}},
        axes: [timeAxis, {label: 'ms', scale: 'ms'}]
      },
      lat);
  markSlo('chart-latency', latLimits);

  if (s.service_p99 && s.lag_p99) {
    const svSeries = [
      {label: 't (s)'}, line('service p99', palette[0], 'ms', {value: ms}),
      line('lag p99', palette[3], 'ms', {value: ms})
    ];
    const svCols = [t, s.service_p99, s.lag_p99];
    const svLimits = sloLines(['service'], () => 'ms', t, svSeries, svCols);
    plot(
        'chart-service', 'Service time and scheduler lag (p99)',
        'service: sent to complete; lag: planned send to actual send (rate mode)', {
          series: svSeries,
          scales: {x: {time: false}, ms: {distr: 3}},
          axes: [timeAxis, {label: 'ms', scale: 'ms'}]
        },
        svCols);
    markSlo('chart-service', svLimits);
  }

  // Heatmap: a histogram per window, painted as cells over time and latency (log).
  const hm = s.heatmap;
  let peak = 0;
  for (const row of hm.counts)
    for (const v of row) peak = Math.max(peak, v);
  const edges = hm.edges_ms;
  plot(
      'chart-heatmap', 'Latency heatmap', 'requests per window and latency band; darker is more', {
        series: [
          {label: 't (s)'},
          {label: 'latency', scale: 'ms', stroke: 'transparent', points: {show: false}}
        ],
        scales: {x: {time: false}, ms: {distr: 3, range: [edges[0], edges[edges.length - 1]]}},
        axes: [timeAxis, {label: 'ms', scale: 'ms'}],
        legend: {show: false},
        hooks: {
          draw: [(u) => {
            const ctx = u.ctx;
            ctx.save();
            ctx.beginPath();
            ctx.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
            ctx.clip();
            for (let i = 0; i < t.length; i++) {
              const x0 = u.valToPos(s.t_start[i], 'x', true);
              const x1 = u.valToPos(t[i], 'x', true);
              for (let b = 0; b < edges.length - 1; b++) {
                const v = hm.counts[i][b];
                if (!v) continue;
                const y0 = u.valToPos(edges[b], 'ms', true);
                const y1 = u.valToPos(edges[b + 1], 'ms', true);
                const a = 0.15 + 0.85 * Math.log1p(v) / Math.log1p(peak);
                ctx.fillStyle = 'rgba(47,111,223,' + a.toFixed(3) + ')';
                ctx.fillRect(x0, y1, Math.max(1, x1 - x0), Math.max(1, y0 - y1));
              }
            }
            ctx.restore();
          }]
        }
      },
      [t, t.map(() => null)]);
  document.getElementById('chart-heatmap').dataset.cells =
      String(hm.counts.reduce((n, row) => n + row.filter((v) => v > 0).length, 0));
}

// --monitor: the server's CPU and RSS (and the host's busy CPU) at each window's end.
const res = (data.resources || []).filter((m) => m.t.length > 0);
if (res.length > 0) {
  const t = res[0].t;
  const series = [{label: 'seconds'}];
  const cols = [t];
  const at = (m, values) => t.map((x) => {
    const i = m.t.indexOf(x);
    return i < 0 || values[i] == null ? null : values[i];
  });
  res.forEach((m, i) => {
    series.push(line(
        m.source + (m.host ? ' CPU busy %' : ' CPU % of one core'),
        palette[(2 * i) % palette.length], 'pct',
        {value: (u, v) => v == null ? '-' : v.toFixed(1) + ' %'}));
    cols.push(at(m, m.cpu_pct));
    if (m.rss_mib) {
      series.push(line(
          m.source + ' RSS MiB', palette[(2 * i + 1) % palette.length], 'mib',
          {dash: [5, 4], value: (u, v) => v == null ? '-' : v.toFixed(1) + ' MiB'}));
      cols.push(at(m, m.rss_mib));
    }
  });
  plot(
      'chart-resources', 'Server resources (--monitor)',
      'CPU (solid, %) and RSS (dashed, MiB) sampled at each window\'s end; gaps: not running', {
        series: series,
        scales: {x: {time: false}},
        axes: [
          timeAxis, {label: '%', scale: 'pct'},
          {label: 'MiB', scale: 'mib', side: 1, grid: {show: false}}
        ]
      },
      cols);
}

// Percentile spectrum, HdrHistogram's view: x = 1/(1-p) on a log axis.
const sp = data.spectrum;
if (sp.curves.length > 0) {
  const x = sp.percentiles.map((p) => 1 / (1 - Math.min(p, 99.9999) / 100));
  const cols = [x].concat(sp.curves.map((c) => c.ms));
  plot(
      'chart-spectrum', 'Percentile spectrum',
      'latency under which p of the requests completed, p from 0% to 99.999%', {
        series: [{
                  label: 'percentile',
                  value: (u, v) => v == null ? '-' : (100 * (1 - 1 / v)).toPrecision(6) + '%'
                }].concat(sp.curves.map((c, i) => line(c.name, palette[i % palette.length], 'ms', {
                                          value: ms
                                        }))),
        scales: {x: {time: false, distr: 3, range: [1, 1e5]}, ms: {distr: 3}},
        axes: [spectrumAxis, {label: 'ms', scale: 'ms'}]
      },
      cols);
}

// The knee: each step's target against what it achieved and its latency; the steps that met
// every threshold (--slo) as green points, those that failed one as red.
const st = data.steps;
if (st && st.target.length > 0) {
  const marks = (want, color) => ({
    label: want ? 'passed' : 'failed',
    scale: 'rps',
    stroke: color,
    paths: () => null,
    points: {show: true, size: 9, fill: color, stroke: color}
  });
  const passed = st.achieved.map((v, i) => st.ok[i] === true ? v : null);
  const failed = st.achieved.map((v, i) => st.ok[i] === false ? v : null);
  const kneeSeries = [
    {label: 'target (' + st.unit + ')'},
    line('achieved/s', palette[0], 'rps', {points: {show: true}}),
    line('p50', palette[1], 'ms', {value: ms}), line('p99', palette[2], 'ms', {value: ms}),
    marks(true, '#2ca02c'), marks(false, '#d62728')
  ];
  const kneeCols = [st.target, st.achieved, st.p50, st.p99, passed, failed];
  const kneeLimits = sloLines(
      ['latency', 'throughput'], (c) => c === 'latency' ? 'ms' : 'rps', st.target, kneeSeries,
      kneeCols);
  plot(
      'chart-knee', 'Steps: throughput and latency against the target',
      'one point per step' +
          (st.ok.some((v) => v !== null) ? '; green: met every threshold, red: failed one' : ''),
      {
        series: kneeSeries,
        scales: {x: {time: false}, ms: {distr: 3}},
        axes: [
          {label: 'target (' + st.unit + ')'}, {label: 'per second', scale: 'rps'},
          {label: 'ms', scale: 'ms', side: 1, grid: {show: false}}
        ]
      },
      kneeCols);
  markSlo('chart-knee', kneeLimits);
  document.getElementById('chart-knee').dataset.failed =
      String(failed.filter((v) => v !== null).length);
}

done();
})();

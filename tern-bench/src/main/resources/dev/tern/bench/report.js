(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('bench-data').textContent);
  var rows = data.rows;
  var container = document.getElementById('charts');
  var charts = [];

  function chart(title, option) {
    var el = document.createElement('div');
    el.className = 'chart';
    container.appendChild(el);
    var c = echarts.init(el);
    var base = {
      animation: false,
      title: { text: title, left: 'center', textStyle: { fontSize: 14 } },
      tooltip: { trigger: 'axis' },
      legend: { bottom: 0, type: 'scroll' },
      grid: { left: 70, right: 90, top: 50, bottom: 70 }
    };
    Object.keys(option).forEach(function (k) { base[k] = option[k]; });
    c.setOption(base);
    charts.push(c);
  }

  function fixed(v, digits) { return Number(v).toFixed(digits); }

  // Percentile curve on the usual "1 / (1 - p)" axis, so that 99, 99.9 and 99.99 are equally far apart.
  function toX(p) { return 1 / (1 - Math.min(p, 99.9999) / 100); }
  function pctLabel(v) {
    var p = 100 - 100 / v;
    if (p <= 0) { return '0%'; }
    return (p >= 99 ? String(+p.toFixed(4)) : String(Math.round(p))) + '%';
  }
  var curves = rows.filter(function (r) { return r.run.percentiles && r.run.percentiles.length; });
  if (curves.length) {
    chart('Latency by percentile (ms)', {
      tooltip: {
        trigger: 'item',
        formatter: function (p) { return p.seriesName + '<br>' + pctLabel(p.value[0]) + ': ' + p.value[1] + ' ms'; }
      },
      xAxis: { type: 'log', min: 1, name: 'percentile', nameLocation: 'middle', nameGap: 28,
               axisLabel: { formatter: pctLabel } },
      yAxis: { type: 'log', name: 'ms' },
      series: curves.map(function (r) {
        return { name: r.label, type: 'line', showSymbol: false,
                 data: r.run.percentiles.map(function (p) { return [toX(p.percentile), p.latencyMs]; }) };
      })
    });
  }

  var measured = rows.filter(function (r) { return r.run.latency; });
  if (measured.length > 1) {
    var sameTarget = measured.every(function (r) { return r.run.target === measured[0].run.target; });
    var points = function (r) { return [r.run.throughput, r.run.latency.p99Ms, r.label]; };
    chart('Throughput vs p99 latency', {
      tooltip: {
        trigger: 'item',
        formatter: function (p) { return p.value[2] + '<br>' + fixed(p.value[0], 0) + ' req/s, p99 ' + p.value[1] + ' ms'; }
      },
      xAxis: { type: 'value', name: 'req/s', nameLocation: 'middle', nameGap: 28, scale: true },
      yAxis: { type: 'value', name: 'p99 ms', scale: true },
      series: sameTarget
        ? (function () {
            // One line per loop mode; open-loop points of a sweep over connections get a line per limit.
            var groups = [];
            var byName = {};
            measured.forEach(function (r) {
              var name = r.run.mode === 'closed' ? 'closed loop (connections)'
                : r.run.connections > 0 ? 'open loop, ' + r.run.connections + ' conn' : 'open loop (rate)';
              if (!byName[name]) { byName[name] = []; groups.push(name); }
              byName[name].push(r);
            });
            return groups.map(function (name) {
              return { name: name, type: 'line', symbolSize: 9, data: byName[name].map(points),
                       label: { show: true, position: 'top', formatter: function (p) { return p.value[2]; } } };
            });
          })()
        : measured.map(function (r) {
            return { name: r.label, type: 'scatter', symbolSize: 12, data: [points(r)],
                     label: { show: true, position: 'top', formatter: function (p) { return p.value[2]; } } };
          })
    });
    chart('Latency per run (ms)', {
      xAxis: { type: 'category', data: measured.map(function (r) { return r.label; }), axisLabel: { interval: 0 } },
      yAxis: { type: 'value', name: 'ms' },
      series: ['p50Ms', 'p90Ms', 'p99Ms'].map(function (k) {
        return { name: k.replace('Ms', ''), type: 'bar', data: measured.map(function (r) { return r.run.latency[k]; }) };
      })
    });
  }

  var cpu = rows.filter(function (r) { return r.run.process; });
  if (cpu.length) {
    chart('Server CPU time per call (µs)', {
      tooltip: { trigger: 'axis' },
      xAxis: { type: 'category', data: cpu.map(function (r) { return r.label; }), axisLabel: { interval: 0 } },
      yAxis: { type: 'value', name: 'µs' },
      series: [{ name: 'CPU per call', type: 'bar', barMaxWidth: 60,
                 label: { show: true, position: 'top',
                          formatter: function (p) { return p.value >= 100 ? Math.round(p.value) : p.value.toFixed(1); } },
                 data: cpu.map(function (r) { return r.run.process.cpuPerCallMicros; }) }]
    });
  }

  var split = rows.filter(function (r) { return r.run.serverSplit; });
  if (split.length) {
    chart("Server's split of a request, median (ms)", {
      xAxis: { type: 'category', data: split.map(function (r) { return r.label; }) },
      yAxis: { type: 'value', name: 'ms' },
      series: [['parse', 'parse'], ['queue', 'queue'], ['exec', 'execute'], ['serialize', 'serialize']]
        .map(function (k) {
          return { name: k[1], type: 'bar', stack: 'split', data: split.map(function (r) {
            var l = r.run.serverSplit[k[0]]; return l ? l.p50Ms : 0; }) };
        })
    });
  }

  rows.filter(function (r) { return r.run.series && r.run.series.length; }).slice(0, 16).forEach(function (r) {
    var s = r.run.series;
    var hasCpu = s.some(function (p) { return p.cpuPercent != null; });
    var series = [
      { name: 'errors/s', type: 'bar', stack: 'completed', yAxisIndex: 0, itemStyle: { color: '#e08a8a' },
        data: s.map(function (p) { return [p.second, p.errors]; }) },
      { name: 'ok/s', type: 'bar', stack: 'completed', yAxisIndex: 0, itemStyle: { color: '#9ab7e0' },
        data: s.map(function (p) { return [p.second, p.requests - p.errors]; }),
        markArea: r.run.warmupSeconds > 0
          ? { silent: true, itemStyle: { color: 'rgba(120,120,120,0.10)' },
              data: [[{ name: 'warm-up', xAxis: 0 }, { xAxis: r.run.warmupSeconds }]] }
          : undefined },
      { name: 'p99 ms', type: 'line', yAxisIndex: 1, showSymbol: false,
        data: s.map(function (p) { return [p.second, p.p99Ms]; }) },
      { name: 'max ms', type: 'line', yAxisIndex: 1, showSymbol: false, lineStyle: { type: 'dotted' },
        data: s.map(function (p) { return [p.second, p.maxMs]; }) }
    ];
    var yAxis = [{ type: 'value', name: 'per s' }, { type: 'value', name: 'ms', position: 'right' }];
    if (hasCpu) {
      yAxis.push({ type: 'value', name: 'CPU %', position: 'right', offset: 55 });
      series.push({ name: 'server CPU %', type: 'line', yAxisIndex: 2, showSymbol: false,
                    lineStyle: { type: 'dashed' }, data: s.map(function (p) { return [p.second, p.cpuPercent]; }) });
    }
    chart('Per second: ' + r.label, {
      xAxis: { type: 'value', name: 's', nameLocation: 'middle', nameGap: 28, min: 0,
               max: Math.ceil(s[s.length - 1].second) + 1 },
      yAxis: yAxis,
      series: series
    });
  });

  window.addEventListener('resize', function () { charts.forEach(function (c) { c.resize(); }); });
})();

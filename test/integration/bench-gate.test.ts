// test/bench/check.ts: the benchmark gate's figures, verdicts and recording, on rows built by hand (no load is run).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureLine, judge, measureFigures, recordValues, type Threshold } from '../bench/check.js';
import type { ReportRow } from '../bench/report.js';

/** A row as the report builds it, with `cpuSeconds` of CPU over `units` units of work. */
function row(label: string, cpuSeconds: number, units: number, extra: Partial<ReportRow> = {}): ReportRow {
  return {
    label,
    scenario: 'x',
    rate: units,
    p50Ms: 1,
    p99Ms: 2,
    responses: units,
    non2xx: {},
    socketErrors: 0,
    durationSeconds: 1,
    connections: 50,
    ratioToUws: null,
    ratioToNodeHttp: null,
    ratioToFloor: null,
    cpuPerUnit: null,
    errors: 0,
    cpu: { whose: 'server', cpuSeconds, windowSeconds: 1, units, unit: 'request' },
    ...extra,
  };
}

/** Equal up to floating-point rounding. */
function near(actual: number | undefined, expected: number): void {
  assert.ok(actual !== undefined && Math.abs(actual - expected) < 1e-9 * expected, `${actual} is not ${expected}`);
}

const entry = (figure: string, kind: 'max' | 'min', threshold: number): Threshold => ({ figure, kind, threshold, recorded: { value: threshold / 1.3, commit: 'abc1234' } });

describe('the benchmark gate', () => {
  it('measures CPU per unit against the floor the row names, and against bare uWS', () => {
    const rows = [
      row('bare uWS', 1, 40_000), // 25 µs per request
      row('health', 1.5, 20_000), // 75 µs
      row('send floor (twilio SDK alone)', 0.5, 5_000), // 100 µs per create
      row('send-message (sms)', 1, 2_500, { floor: 'send floor (twilio SDK alone)' }), // 400 µs per send
      row('voice, 50 calls', 0.4, 400, { cpu: { whose: 'server', cpuSeconds: 0.4, windowSeconds: 8, units: 400, unit: 'call-second', scale: 'ms' } }), // 1 ms
    ];
    const values = measureFigures(rows);
    near(values.get('health CPU per request / bare uWS CPU per request'), 3);
    near(values.get('send CPU per send / SDK floor CPU per create'), 4);
    near(values.get('send CPU per send / bare uWS CPU per request'), 16);
    // The scale a row is shown in does not enter the ratio: 1 ms over 25 µs.
    near(values.get('voice CPU per call-second / bare uWS CPU per request'), 40);
    // Rows this run has not got give no figure.
    assert.equal(values.get('inbox read CPU per page / bare uWS CPU per request'), undefined);
    assert.equal(values.get('ingest CPU per webhook / ingest floor CPU per webhook'), undefined);
  });

  it('passes a cost at or under its threshold and a share at or over it, and fails the rest', () => {
    const values = new Map<string, number | undefined>([
      ['cost under', 1.2],
      ['cost at', 1.3],
      ['cost over', 1.31],
      ['share over', 0.8],
      ['share under', 0.5],
    ]);
    const thresholds = [entry('cost under', 'max', 1.3), entry('cost at', 'max', 1.3), entry('cost over', 'max', 1.3), entry('share over', 'min', 0.6), entry('share under', 'min', 0.6)];
    const verdicts = judge(values, thresholds);
    assert.deepEqual(
      verdicts.map((v) => [v.figure, v.ok]),
      [
        ['cost under', true],
        ['cost at', true],
        ['cost over', false],
        ['share over', true],
        ['share under', false],
      ],
    );
  });

  it('fails a figure that was not measured, an entry whose figure is gone, and a figure with no entry', () => {
    const verdicts = judge(
      new Map<string, number | undefined>([
        ['scenario failed', undefined],
        ['new figure', 2],
      ]),
      [entry('scenario failed', 'max', 2), entry('renamed figure', 'max', 2)],
    );
    assert.deepEqual(
      verdicts.map((v) => [v.figure, v.ok]),
      [
        ['scenario failed', false],
        ['new figure', false],
        ['renamed figure', false],
      ],
    );
    assert.match(failureLine(verdicts[1]!), /new figure: 2\.000, but thresholds\.json has no entry for it/);
  });

  it('names the figure, its value, its threshold and the commit that recorded it in a failure', () => {
    const [verdict] = judge(new Map([['send CPU per send / SDK floor CPU per create', 6.3]]), [
      { figure: 'send CPU per send / SDK floor CPU per create', kind: 'max', threshold: 5.5, recorded: { value: 4.2, commit: '1a2b3c4' } },
    ]);
    assert.equal(failureLine(verdict!), 'FAIL send CPU per send / SDK floor CPU per create: 6.300 > 5.500 (max); recorded 4.200 at 1a2b3c4');
  });

  it('records values and the commit, keeping every threshold, and gives a new figure one 1.3× from its value', () => {
    const figure = (name: string, kind: 'max' | 'min') => ({ name, kind, scenario: 'x', value: () => undefined });
    const kept = { ...entry('kept', 'max', 9), basis: 'three runs' };
    const gone = entry('a figure this run did not measure', 'max', 1);
    const values = new Map<string, number | undefined>([
      ['kept', 3.14159],
      ['new cost', 2],
      ['new share', 0.52],
    ]);
    const updated = recordValues(values, [kept, gone], 'def5678', [figure('kept', 'max'), figure('new cost', 'max'), figure('new share', 'min')]);
    assert.deepEqual(updated, [
      { ...kept, recorded: { value: 3.14, commit: 'def5678' } },
      gone,
      { figure: 'new cost', kind: 'max', threshold: 2.6, recorded: { value: 2, commit: 'def5678' } },
      { figure: 'new share', kind: 'min', threshold: 0.4, recorded: { value: 0.52, commit: 'def5678' } },
    ]);
  });
});

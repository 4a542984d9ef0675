import { derivedViewing, viewingsAfterWrite, type EntryFacts, type Viewing } from './viewing-rules';

const NOW = new Date('2026-11-28T10:00:00.123Z');
const facts = (fields: Partial<EntryFacts>): EntryFacts => ({
  status: 'ongoing',
  progress: 0,
  score: 0,
  repeating: false,
  startDate: null,
  endDate: null,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-02-01T00:00:00Z',
  ...fields,
});
const closed = (fields: Partial<Viewing>): Viewing => ({
  number: 1,
  state: 'finished',
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-02-01T00:00:00Z',
  closedAtMs: NOW.getTime() - 1000,
  score: 70,
  progress: 12,
  ...fields,
});

describe('viewingsAfterWrite', () => {
  it('opens and closes one viewing for a completed creation, dated from the body', () => {
    const result = viewingsAfterWrite(
      null,
      null,
      facts({ status: 'completed', progress: 12, score: 80 }),
      { start_date: '2026-01-05', end_date: '2026-02-10' },
      NOW,
    );
    expect(result).toEqual({
      changed: [
        {
          number: 1,
          state: 'finished',
          startedAt: '2026-01-05T00:00:00Z',
          finishedAt: '2026-02-10T00:00:00Z',
          closedAtMs: NOW.getTime(),
          score: 80,
          progress: 12,
        },
      ],
      eventViewing: 1,
    });
  });

  it('gives a bookmark nobody started no viewing', () => {
    expect(viewingsAfterWrite(null, null, facts({ status: 'bookmark' }), {}, NOW)).toEqual({
      changed: [],
      eventViewing: null,
    });
  });

  it('closes an open viewing as abandoned when a rewatch starts on an entry that was not completed', () => {
    const open = closed({ state: 'open', finishedAt: null, closedAtMs: null, score: null });
    const { changed } = viewingsAfterWrite(
      open,
      facts({ status: 'on_hold', progress: 12 }),
      facts({ status: 'on_hold', progress: 12, repeating: true }),
      {},
      NOW,
    );
    expect(changed.map((v) => [v.number, v.state])).toEqual([
      [1, 'abandoned'],
      [2, 'open'],
    ]);
  });

  it('takes a late score within 24 hours of the close, not after', () => {
    const before = facts({ status: 'completed', progress: 12, score: 70 });
    const after = facts({ status: 'completed', progress: 12, score: 90 });
    expect(viewingsAfterWrite(closed({}), before, after, {}, NOW).changed).toEqual([
      closed({ score: 90 }),
    ]);
    const old = closed({ closedAtMs: NOW.getTime() - 24 * 3600 * 1000 - 1 });
    expect(viewingsAfterWrite(old, before, after, {}, NOW).changed).toEqual([]);
  });
});

describe('derivedViewing', () => {
  it('dates an entry of 1.1 from its dates, else its timestamps', () => {
    expect(derivedViewing(facts({ status: 'dropped', progress: 3, score: 40 }))).toEqual({
      number: 1,
      state: 'abandoned',
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-02-01T00:00:00Z',
      closedAtMs: Date.parse('2026-02-01T00:00:00Z'),
      score: 40,
      progress: 3,
    });
    expect(derivedViewing(facts({ status: 'dropped' }))).toBeNull();
    expect(derivedViewing(facts({ startDate: '2025-12-24' }))).toMatchObject({
      state: 'open',
      startedAt: '2025-12-24T00:00:00Z',
      finishedAt: null,
      score: null,
    });
  });
});

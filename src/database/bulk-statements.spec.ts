import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';
import { deleteWhereIn, findWhereIn, inBatches, insertRows, updateRow } from './bulk-statements';

describe('inBatches', () => {
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);

  it('keeps every item once, in order', () => {
    for (const n of [0, 1, 7, 199, 200, 201, 300, 1000, 1234]) {
      expect(inBatches(range(n), 200).flat()).toEqual(range(n));
    }
  });

  it('cuts what is left after the full batches into decreasing powers of two', () => {
    expect(inBatches(range(300), 256).map((batch) => batch.length)).toEqual([256, 32, 8, 4]);
    expect(inBatches(range(1234), 200).map((batch) => batch.length)).toEqual([
      200, 200, 200, 200, 200, 200, 32, 2,
    ]);
  });

  it('makes at most log2(size) + 2 different lengths whatever the counts', () => {
    const lengths = new Set<number>();
    for (let n = 0; n <= 2000; n++) {
      for (const batch of inBatches(range(n), 200)) lengths.add(batch.length);
    }
    expect(lengths.size).toBeLessThanOrEqual(Math.floor(Math.log2(200)) + 2);
  });

  it('refuses a batch size that is not a count', () => {
    expect(() => inBatches([1], 0)).toThrow(/not a count/);
  });
});

@Entity('shelf_items')
class ShelfItem {
  @PrimaryColumn({ type: 'varchar', length: 8 })
  shelf: string;

  @PrimaryColumn({ name: 'item_id', type: 'int' })
  itemId: number;

  @Column({ type: 'varchar', length: 20, nullable: true })
  label: string | null;
}

describe('the bulk statements, on SQLite', () => {
  let dataSource: DataSource;
  const prepared: string[] = [];

  beforeEach(async () => {
    dataSource = new DataSource({
      type: 'better-sqlite3',
      database: ':memory:',
      entities: [ShelfItem],
      synchronize: true,
    });
    await dataSource.initialize();
    const connection = (
      dataSource.driver as unknown as {
        databaseConnection: { prepare: (sql: string) => unknown };
      }
    ).databaseConnection;
    const prepare = connection.prepare.bind(connection);
    prepared.length = 0;
    connection.prepare = (sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    };
  });

  afterEach(() => dataSource.destroy());

  const items = (shelf: string, from: number, count: number): ShelfItem[] =>
    Array.from({ length: count }, (_, i) => ({
      shelf,
      itemId: from + i,
      label: i % 3 === 0 ? null : `item ${from + i}`,
    }));

  it('inserts, finds, updates and deletes with every value bound: few statement texts', async () => {
    const manager = dataSource.manager;
    await insertRows(manager, ShelfItem, items('a', 1, 300), 64);
    await insertRows(manager, ShelfItem, items('a', 1001, 137), 64);
    await insertRows(manager, ShelfItem, items('b', 1, 5), 64);

    const ids = [...Array(437).keys()].map((i) => (i < 300 ? i + 1 : 701 + i));
    const found = await findWhereIn(
      manager,
      ShelfItem,
      { equal: { shelf: 'a' }, property: 'itemId', values: ids },
      64,
      ['itemId'],
    );
    expect(found).toHaveLength(437);
    expect(found[1]).toEqual({ shelf: 'a', itemId: 2, label: 'item 2' });
    expect(found[0].label).toBeNull();

    await updateRow(manager, ShelfItem, { shelf: 'b', itemId: 2 }, { label: 'moved' });
    await updateRow(manager, ShelfItem, { shelf: 'b', itemId: 3 }, { label: 'again' });
    await deleteWhereIn(
      manager,
      ShelfItem,
      { equal: { shelf: 'a' }, property: 'itemId', values: ids.slice(0, 250) },
      64,
    );
    expect(
      await manager.query('SELECT shelf, COUNT(*) AS n FROM shelf_items GROUP BY shelf'),
    ).toEqual([
      { shelf: 'a', n: 187 },
      { shelf: 'b', n: 5 },
    ]);
    expect(
      (await manager.findBy(ShelfItem, { shelf: 'b' })).map((item) => item.label).slice(1, 3),
    ).toEqual(['moved', 'again']);

    // No text carries a value, and each length of batch is one text (prepared once: TypeORM keeps
    // it): inserts 64, 32, 8, 4, 1; finds 64, 32, 16, 4, 1; deletes 64, 32, 16, 8, 2; the update.
    const bulk = prepared.filter(
      (sql) => sql.includes('"shelf_items"') && !sql.includes('"ShelfItem"'),
    );
    expect(bulk.filter((sql) => /\b(1001|701|moved)\b/.test(sql))).toEqual([]);
    expect(bulk).toHaveLength(16);
  });

  it('refuses rows whose properties differ from the first', async () => {
    const rows = [
      { shelf: 'a', itemId: 1, label: 'x' },
      { shelf: 'a', itemId: 2 },
    ] as ShelfItem[];
    await expect(insertRows(dataSource.manager, ShelfItem, rows, 64)).rejects.toThrow(
      /every row has every column/,
    );
    expect(await dataSource.manager.count(ShelfItem)).toBe(0);
  });
});

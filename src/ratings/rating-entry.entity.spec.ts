import { getMetadataArgsStorage } from 'typeorm';
import { ENTRY_COLUMNS } from '../media-types/entry-columns';
import { RatingEntry } from './rating-entry.entity';

describe('RatingEntry', () => {
  it('has a column for each of ENTRY_COLUMNS, by its database name, in the list order', () => {
    const keys = ['id', 'userId', 'mediaType', 'titleId', 'createdAt', 'updatedAt', 'revision'];
    const entityColumns = getMetadataArgsStorage()
      // The entity's own columns and those of the class it extends, in their order.
      .filterColumns([RatingEntry, Object.getPrototypeOf(RatingEntry) as typeof RatingEntry])
      .filter((column) => !keys.includes(column.propertyName))
      .map((column) => [column.options.name, column.propertyName]);
    expect(entityColumns).toEqual(ENTRY_COLUMNS.map(({ column, property }) => [column, property]));
  });
});

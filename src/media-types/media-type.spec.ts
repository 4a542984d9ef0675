import { getMetadataArgsStorage } from 'typeorm';
import { MEDIA_TYPE_DESCRIPTORS } from './registry';
import { capitalized, MEDIA_TYPE_LENGTH, MEDIA_TYPES } from './media-type';

describe('media type names', () => {
  it('are the registered descriptors', () => {
    expect(MEDIA_TYPES).toEqual(MEDIA_TYPE_DESCRIPTORS.map(({ name }) => name));
  });

  it('fit the media_type columns: a longer name needs MEDIA_TYPE_LENGTH raised and a migration', () => {
    for (const name of MEDIA_TYPES) expect(name.length).toBeLessThanOrEqual(MEDIA_TYPE_LENGTH);
  });

  it('make schema names in PascalCase', () => {
    expect(capitalized('anime')).toBe('Anime');
    expect(capitalized('light_novel')).toBe('LightNovel');
  });
});

describe('media_type columns', () => {
  it('all have MEDIA_TYPE_LENGTH', async () => {
    // Every entity's media_type column, as the app loads them.
    await import('../entities');
    const columns = getMetadataArgsStorage().columns.filter(
      ({ options }) => options.name === 'media_type',
    );
    expect(columns.length).toBeGreaterThanOrEqual(3);
    for (const column of columns) expect(column.options.length).toBe(MEDIA_TYPE_LENGTH);
  });
});

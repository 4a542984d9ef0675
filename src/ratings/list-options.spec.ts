import { ProblemException } from '../common/problem';
import { nextPageQuery, parseListOptions } from './list-options';

function fieldsOf(query: Record<string, unknown>): string[] {
  try {
    parseListOptions(query);
  } catch (error) {
    return ((error as ProblemException).problem.errors ?? []).map((e) => e.field);
  }
  return [];
}

describe('GET all options', () => {
  it('none: the whole list', () => {
    expect(parseListOptions({})).toEqual({ statuses: null, limit: null, after: null });
  });

  it('normalizes statuses, reads limit and after', () => {
    expect(
      parseListOptions({ status: 'ongoing,completed,ongoing', limit: '10', after: '7' }),
    ).toEqual({ statuses: ['completed', 'ongoing'], limit: 10, after: 7 });
  });

  it.each<[Record<string, unknown>, string[]]>([
    [{ status: '' }, ['status']],
    [{ status: 'watching' }, ['status']],
    [{ status: 'ongoing,' }, ['status']],
    [{ status: ['ongoing', 'completed'] }, ['status']],
    [{ limit: '0' }, ['limit']],
    [{ limit: '1001' }, ['limit']],
    [{ limit: '' }, ['limit']],
    [{ limit: '1.5' }, ['limit']],
    [{ after: '3' }, ['after']],
    [{ limit: '5', after: '0' }, ['after']],
    [{ limit: '5', after: '2147483648' }, ['after']],
    [{ status: 'x', limit: 'y', after: 'z' }, ['status', 'limit', 'after']],
  ])('%p is 400 naming %p', (query, fields) => {
    expect(fieldsOf(query)).toEqual(fields);
  });

  it('links the next page', () => {
    expect(nextPageQuery({ statuses: ['completed', 'ongoing'], limit: 2, after: null }, 9)).toBe(
      'status=completed,ongoing&limit=2&after=9',
    );
  });
});

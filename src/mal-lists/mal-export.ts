import type { MediaType } from '../media-types/media-type';
import type { RatingView } from '../media-types';
import type { TitleCounts } from '../ratings/ratings.repository';
import {
  CDATA_ELEMENTS,
  malDesireOf,
  malFormatOf,
  malPriorityOf,
  malStatusOf,
  NO_DATE,
} from './mal-format';
import type { ExportedStatus, MalListFormat } from '../media-types/mal-list-format';

export interface ExportedEntry {
  entry: RatingView;
  counts: TitleCounts;
}

/** Characters XML 1.0 cannot carry (lone surrogates included): written as U+FFFD. */
const NOT_XML_CHAR = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

function xmlChars(text: string): string {
  return text.replace(NOT_XML_CHAR, '\uFFFD');
}

function escapeText(text: string): string {
  return xmlChars(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A `]]>` inside the text ends one CDATA section and starts the next between `]]` and `>`. */
function cdata(text: string): string {
  return `<![CDATA[${xmlChars(text).replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}

/**
 * Without indentation: a 10,000-entry list then stays under the import's 8 MiB cap (each entry
 * is one line of about 800 bytes), so an export can always be imported again.
 */
function element(name: string, value: string | number): string {
  const text = CDATA_ELEMENTS.has(name) ? cdata(String(value)) : escapeText(String(value));
  return `<${name}>${text}</${name}>`;
}

/** The values of one entry's elements (contract §13), by element name. */
function valuesOf(
  format: MalListFormat,
  { entry, counts }: ExportedEntry,
): Record<string, string | number> {
  const fields = entry as unknown as Record<string, string | number | boolean>;
  const values: Record<string, string | number> = {
    my_id: 0,
    my_start_date: entry.start_date ?? NO_DATE,
    my_finish_date: entry.end_date ?? NO_DATE,
    my_score: entry.public_rating,
    my_storage: '',
    my_status: malStatusOf(format, entry.status as ExportedStatus),
    my_comments: entry.notes,
    my_tags: '',
    my_priority: malPriorityOf(entry.priority),
    my_discuss: 0,
    my_sns: '',
    update_on_import: 1,
    [format.idElement]: entry.external_id!,
    [format.titleElement]: entry.title,
    [format.times.element]: fields[format.times.field] as number,
    [format.desire.element]: malDesireOf(fields[format.desire.field] as number),
    [format.repeating.element]: format.repeating.written[fields[format.repeating.field] ? 0 : 1],
    ...format.fixed,
  };
  for (const [element, count] of Object.entries(format.titleCounts)) {
    values[element] = counts[count] ?? 0;
  }
  for (const { element, field } of format.progress) values[element] = fields[field] as number;
  return values;
}

/** The whole export document (contract §13): `<myinfo>` with the totals, then every entry. */
export function malExportXml(
  mediaType: MediaType,
  user: { id: number; name: string },
  entries: ExportedEntry[],
): string {
  const format = malFormatOf(mediaType);
  const count = (status: string) => entries.filter((e) => e.entry.status === status).length;
  const totals = format.totals;
  const parts = [
    '<?xml version="1.0" encoding="UTF-8" ?>\n<myanimelist>\n\t<myinfo>',
    element('user_id', user.id),
    element('user_name', user.name),
    element('user_export_type', format.exportType),
    element(totals.all, entries.length),
    element(totals.ongoing, count('ongoing')),
    element(totals.completed, count('completed')),
    element(totals.on_hold, count('on_hold')),
    element(totals.dropped, count('dropped')),
    element(totals.bookmark, count('bookmark')),
    '</myinfo>\n',
  ];
  for (const exported of entries) {
    const values = valuesOf(format, exported);
    parts.push(`\t<${format.entryElement}>`);
    for (const name of format.elements) parts.push(element(name, values[name]));
    parts.push(`</${format.entryElement}>\n`);
  }
  parts.push('</myanimelist>\n');
  return parts.join('');
}

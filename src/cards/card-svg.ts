import { capitalized } from '../media-types/media-type';

export const CARD_WIDTH = 495;
export const CARD_HEIGHT = 195;

/** What a card shows of one media type (contract §22), from the visible entries. */
export interface CardColumn {
  /** `anime`, `manga`. */
  mediaType: string;
  /** The profile's word for ongoing entries: `watching`, `reading`. */
  ongoingLabel: string;
  ongoing: number;
  completed: number;
  /** The profile's `average` (0–100, rounded half up); 0 when nothing is scored. */
  average: number;
  /** The profile's media_minutes. */
  mediaMinutes: number;
}

/** Characters XML 1.0 does not allow in a document become U+FFFD. */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text as SVG character data and attribute values: five characters to escape need no library. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** The mean score on a 10-point scale with one decimal (`8.3`), `–` when nothing is scored. */
export function tenPointMean(average: number): string {
  // `average` is already the mean of 0–100 rounded half up: tenths of the 10-point scale.
  return average === 0 ? '–' : (average / 10).toFixed(1);
}

/** Total hours: media_minutes / 60, rounded down. */
export function hoursOf(mediaMinutes: number): number {
  return Math.floor(mediaMinutes / 60);
}

/** Names longer than this are drawn narrower so that they fit the card. */
const NAME_FITS = 30;

/**
 * The card: the user's name and, per media type, ongoing and completed counts, the mean score and
 * the hours. It carries its own background and colours for light and dark pages (system fonts;
 * `prefers-color-scheme` for the dark palette) and no timestamp, so its bytes change only with
 * what it shows.
 */
export function renderCard(name: string, columns: CardColumn[]): string {
  const nameAttributes =
    [...name].length > NAME_FITS
      ? ` textLength="${CARD_WIDTH - 48}" lengthAdjust="spacingAndGlyphs"`
      : '';
  const columnWidth = (CARD_WIDTH - 48) / Math.max(columns.length, 1);
  const blocks = columns.map((column, index) => {
    const x = 24 + index * columnWidth;
    const rows: [string, string][] = [
      [capitalized(column.ongoingLabel), String(column.ongoing)],
      ['Completed', String(column.completed)],
      ['Mean score', tenPointMean(column.average)],
      ['Hours', String(hoursOf(column.mediaMinutes))],
    ];
    const valueX = x + columnWidth - 24;
    return [
      `<text class="heading" x="${x}" y="82">${escapeXml(capitalized(column.mediaType))}</text>`,
      ...rows.map(
        ([label, value], row) =>
          `<text class="label" x="${x}" y="${108 + row * 22}">${escapeXml(label)}</text>` +
          `<text class="value" x="${valueX}" y="${108 + row * 22}" text-anchor="end">${escapeXml(value)}</text>`,
      ),
    ].join('');
  });
  const title = escapeXml(`${name}: anime and manga statistics`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${CARD_WIDTH}" height="${CARD_HEIGHT}" viewBox="0 0 ${CARD_WIDTH} ${CARD_HEIGHT}" role="img" aria-label="${title}">`,
    `<title>${title}</title>`,
    '<style>',
    'text{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;fill:#1f2328}',
    '.card{fill:#ffffff;stroke:#d0d7de}',
    '.name{font-size:20px;font-weight:600}',
    '.heading{font-size:15px;font-weight:600;fill:#0969da}',
    '.label{font-size:13px;fill:#57606a}',
    '.value{font-size:13px;font-weight:600}',
    '@media (prefers-color-scheme:dark){text{fill:#e6edf3}.card{fill:#0d1117;stroke:#30363d}.heading{fill:#58a6ff}.label{fill:#8b949e}}',
    '</style>',
    `<rect class="card" x="0.5" y="0.5" width="${CARD_WIDTH - 1}" height="${CARD_HEIGHT - 1}" rx="6"/>`,
    `<text class="name" x="24" y="42"${nameAttributes}>${escapeXml(name)}</text>`,
    ...blocks,
    '</svg>',
  ].join('');
}
